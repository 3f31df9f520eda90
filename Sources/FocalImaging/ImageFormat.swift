public import FocalCore

/// An output encoding. Everything about each one is its row of `FormatDescriptor.all`: names,
/// media type, limits, quality scale, whether the automatic format may choose it, its libvips
/// saver and options; the shim has no list of formats and no limits of its own. A new format is
/// a case here and its row there.
public enum ImageFormat: String, Hashable, Sendable, Codable, CaseIterable {
    /// JPEG, alpha flattened on white.
    case jpeg
    /// PNG, lossless.
    case png
    /// WebP, lossy at the given quality.
    case webp
    /// AVIF (AV1 in HEIF), lossy; at most `avifMaxPixels` pixels.
    case avif
    /// GIF, 256 colours a frame; what an animated GIF comes out as unless a request asks otherwise.
    case gif
    /// HEIC (HEVC in HEIF), where this libvips writes it.
    case heic
    /// TIFF, deflate-compressed.
    case tiff
    /// JPEG XL, where this libvips writes it.
    case jxl

    /// This format's row of the table.
    public var descriptor: FormatDescriptor { FormatDescriptor.table[self] ?? FormatDescriptor.all[0] }

    /// The most pixels an AVIF output may have (2048 × 2048): its encoder holds about 20 bytes
    /// per pixel.
    public static var avifMaxPixels: Int { ImageFormat.avif.descriptor.maxPixels ?? Int.max }

    /// The usual file extension.
    public var fileExtension: String { descriptor.extensions[0] }

    /// The media type.
    public var mediaType: String { descriptor.mediaType }

    /// The format a file extension names (`jpg`, `jpeg`, `png`, `webp`, `avif`, `gif`), if any.
    public init?(fileExtension: String) {
        let lowered = fileExtension.lowercased()
        guard let found = FormatDescriptor.all.first(where: { $0.extensions.contains(lowered) }) else { return nil }
        self = found.format
    }

    /// The format a name or alias names (`jpeg`, `jpg`, `png`, `webp`, `avif`, `gif`), if any.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let found = FormatDescriptor.all.first(where: { $0.names.contains(lowered) }) else { return nil }
        self = found.format
    }

    /// Whether an output of `size` fits this format (its row's side and pixel limits).
    public func holds(_ size: PixelSize) -> Bool { descriptor.holds(size) }
}
