/// An option that lays another image over the output (`watermark(…)`, `frame(…)`, `image(…)`):
/// the image as the request names it, and its content's SHA-256 once read, which is part of the
/// result key (another image under the same name makes another result).
public protocol OverlayOption: Sendable {
    /// The image, as the request names it (a path under the root, an `id:`, a URL, an object).
    var source: String { get }
    /// The SHA-256 of the image's bytes, once read.
    var contentID: String? { get set }
}

extension Watermark: OverlayOption {}
extension NinePatch: OverlayOption {}
