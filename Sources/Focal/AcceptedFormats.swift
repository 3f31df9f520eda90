public import FocalCore
public import FocalImaging

/// The encodings a client takes besides JPEG, for the automatic format (`format(auto)`).
///
/// Read from an HTTP `Accept` header: a format counts only when the header names it explicitly
/// (`image/avif`, `image/webp`) with a quality above 0. Wildcards (`image/*`, `*/*`) do not count:
/// `fetch()` and many HTTP libraries send `*/*` whatever they can decode.
public struct AcceptedFormats: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int

    /// Creates the set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// AVIF.
    public static let avif = AcceptedFormats(rawValue: 1)
    /// WebP.
    public static let webp = AcceptedFormats(rawValue: 2)

    /// The formats an `Accept` header names; empty for nil or a header naming neither.
    /// - Parameter header: The header's value, as sent (several headers joined by commas); read
    ///   as `HTTPAcceptList` reads it.
    public init(acceptHeader header: String?) {
        let names = HTTPAcceptList.accepted(header)
        self = []
        if names.contains("image/avif") { insert(.avif) }
        if names.contains("image/webp") { insert(.webp) }
    }

    /// The best of these formats for an output of `size`: AVIF, then WebP, then JPEG (each
    /// only when it holds that size).
    public func best(for size: PixelSize) -> ImageFormat {
        if contains(.avif), ImageFormat.avif.holds(size) { return .avif }
        if contains(.webp), ImageFormat.webp.holds(size) { return .webp }
        return .jpeg
    }
}
