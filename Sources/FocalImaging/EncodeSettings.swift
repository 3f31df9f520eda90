public import FocalCore

/// How an output is encoded: its format, its quality and its mirroring, travelling together and
/// checked once, when they are made.
public struct EncodeSettings: Hashable, Sendable {
    /// The encoding.
    public let format: ImageFormat
    /// 1...100 on JPEG's scale (each format's row maps it to its encoder's).
    public let quality: Int
    /// Mirroring of the output.
    public let flip: Flip

    /// The qualities Focal takes.
    public static let qualities = 1...100

    /// Creates settings.
    /// - Parameters:
    ///   - format: The encoding.
    ///   - quality: 1...100; default 85.
    ///   - flip: Mirroring; default none.
    /// - Throws: `ImagingError` (`request.invalid`) for a quality outside 1...100.
    public init(format: ImageFormat, quality: Int = 85, flip: Flip = []) throws(ImagingError) {
        guard Self.qualities.contains(quality) else {
            throw ImagingError(.requestInvalid, "quality \(quality) must be between 1 and 100")
        }
        self.format = format
        self.quality = quality
        self.flip = flip
    }
}
