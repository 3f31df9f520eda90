/// Finds subjects in an image. Adopt it to supply your own (a dog detector, a service's answer).
///
/// Detectors see a downscaled copy of the oriented image; they return boxes in that copy's
/// pixels (origin top left), and Focal maps them to the full image.
public protocol SubjectDetecting: Sendable {
    /// A stable name for this detector and its settings; it is part of detection cache keys.
    var identifier: String { get }
    /// The long side, in pixels, of the copy this detector wants to see.
    var preferredLongSide: Int { get }
    /// Whether an image smaller than `preferredLongSide` is scaled up for this detector.
    var enlargesSmallImages: Bool { get }
    /// Returns every subject found in `image`, in its pixels.
    func detect(in image: PixelBuffer) async throws -> [Subject]
}

extension SubjectDetecting {
    /// By default small images are shown as they are.
    public var enlargesSmallImages: Bool { false }
}
