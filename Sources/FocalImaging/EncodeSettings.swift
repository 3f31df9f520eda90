internal import CFocalVips
public import FocalCore

/// How one output is encoded: its format and the request's encode options, travelling together
/// and checked once, when they are made.
public struct EncodeSettings: Hashable, Sendable {
    /// The encoding.
    public let format: ImageFormat
    /// Quality, mirroring and the other options every format reads.
    public let options: EncodeOptions

    /// 1...100 on JPEG's scale (each format's row maps it to its encoder's).
    public var quality: Int { options.quality }
    /// Mirroring of the output.
    public var flip: Flip { options.flip }

    /// Creates settings.
    /// - Parameters:
    ///   - format: The encoding.
    ///   - options: Quality, mirroring; default `EncodeOptions.default`.
    /// - Throws: `ImagingError` (`request.invalid`) for an option out of its range.
    public init(format: ImageFormat, options: EncodeOptions = .default) throws(ImagingError) {
        try options.validate()
        self.format = format
        self.options = options
    }

    /// Creates settings.
    /// - Parameters:
    ///   - format: The encoding.
    ///   - quality: 1...100; default 85.
    ///   - flip: Mirroring; default none.
    /// - Throws: `ImagingError` (`request.invalid`) for a quality outside 1...100.
    public init(format: ImageFormat, quality: Int = 85, flip: Flip = []) throws(ImagingError) {
        try self.init(format: format, options: EncodeOptions(quality: quality, flip: flip))
    }

    /// Calls `body` with the shim's saver for an output of `size`: the format's libvips saver
    /// and options (its row's `saver`), and whether to flatten alpha first.
    func withSaver<Result>(for size: PixelSize, _ body: (UnsafePointer<focal_vips_saver>) -> Result) -> Result {
        let row = format.descriptor
        let text = row.saver(row.encoderQuality(quality), self, size)
        return text.withCString { name in
            var saver = focal_vips_saver(format: name, flatten: row.holdsAlpha ? 0 : 1)
            return withUnsafePointer(to: &saver) { body($0) }
        }
    }
}
