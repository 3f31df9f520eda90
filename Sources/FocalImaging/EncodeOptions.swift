public import FocalCore

/// How an output is encoded whatever its format: quality and mirroring. A request's options hold
/// one; the format, chosen later (`format(auto)`, the input's own), joins it in `EncodeSettings`.
/// A new encode option is a field here, its row in the option table and its use: in the formats'
/// savers (`FormatDescriptor.saver`), or where the output is rendered for what every format
/// shares (flip).
public struct EncodeOptions: Hashable, Sendable, Encodable {
    /// 1...100 on JPEG's scale (each format's row maps it to its encoder's); default 85.
    public var quality: Int
    /// Mirroring of the output; default none.
    public var flip: Flip
    /// WebP and AVIF encoded losslessly (`lossless()`, as imagor); other formats ignore it.
    /// Default false.
    public var lossless = false

    private enum CodingKeys: String, CodingKey { case quality, flip, lossless }

    /// Quality and mirroring, and `lossless` only when set (so keys made before it existed hold).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(quality, forKey: .quality)
        try container.encode(flip, forKey: .flip)
        if lossless { try container.encode(lossless, forKey: .lossless) }
    }

    /// The qualities Focal takes.
    public static let qualities = 1...100

    /// The defaults listed on each property.
    public static let `default` = EncodeOptions()

    /// Creates options; every parameter defaults to the value documented on its property.
    public init(quality: Int = 85, flip: Flip = []) {
        self.quality = quality
        self.flip = flip
    }

    /// Checks every option (the option table's parsers check text first, for their messages).
    /// - Throws: `ImagingError` (`request.invalid`) naming the bad value.
    public func validate() throws(ImagingError) {
        guard Self.qualities.contains(quality) else {
            throw ImagingError(.requestInvalid, "quality \(quality) must be between 1 and 100")
        }
    }
}
