internal import CFocalVips
public import FocalCore

/// An output encoding.
public enum ImageFormat: String, Hashable, Sendable, Codable, CaseIterable {
    /// JPEG, alpha flattened on white.
    case jpeg
    /// PNG, lossless.
    case png
    /// WebP, lossy at the given quality.
    case webp
    /// AVIF (AV1 in HEIF), lossy; at most `avifMaxPixels` pixels.
    case avif

    /// The most pixels an AVIF output may have (2048 × 2048): its encoder holds about 20 bytes
    /// per pixel.
    public static let avifMaxPixels = Int(FOCAL_VIPS_AVIF_MAX_PIXELS)

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        }
    }

    /// The media type.
    public var mediaType: String { "image/\(rawValue)" }

    /// The format a file extension names (`jpg`, `jpeg`, `png`, `webp`, `avif`), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        default: return nil
        }
    }

    /// Whether an output of `size` fits this format (JPEG 65 500 px a side, WebP 16 383, AVIF
    /// `avifMaxPixels`).
    public func holds(_ size: PixelSize) -> Bool {
        switch self {
        case .jpeg: max(size.width, size.height) <= 65_500
        case .webp: max(size.width, size.height) <= 16_383
        case .avif: size.area <= Self.avifMaxPixels
        case .png: true
        }
    }

    /// The encoder's setting for a Focal `quality` (1...100, on JPEG's scale): the same number
    /// for JPEG and WebP; for AVIF 15 less (85 gives 70), where AV1's scale measured about as
    /// close to the source (SSIM) as WebP at 85 in 66-82 % of its bytes (`make bench-formats`).
    func encoderQuality(_ quality: Int) -> Int32 {
        let setting = self == .avif ? max(1, quality - 15) : quality
        return Int32(clamping: setting)
    }

    /// The shim's code for this format.
    var vipsCode: focal_vips_format {
        switch self {
        case .jpeg: FOCAL_VIPS_JPEG
        case .png: FOCAL_VIPS_PNG
        case .webp: FOCAL_VIPS_WEBP
        case .avif: FOCAL_VIPS_AVIF
        }
    }
}
