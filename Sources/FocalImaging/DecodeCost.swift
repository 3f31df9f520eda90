import FocalCore

/// The memory one decode of an image needs, estimated from its header alone, so that a
/// decompression bomb is refused before it is decoded.
///
/// Decoders that stream (baseline JPEG, non-interlaced PNG) hold a few rows at a time; shrink-on-
/// load keeps their output small. The rest hold the whole image: a progressive JPEG keeps every
/// DCT coefficient (2 bytes a sample), an interlaced PNG every row, GIF a full RGBA canvas and a
/// copy, WebP and HEIF a decoded RGBA frame (HEIF also its YUV planes), TIFF its strips or tiles
/// (one strip can be the whole image).
public enum DecodeCost {
    /// Estimated bytes to decode an image with this header; never overflows.
    /// - Parameters:
    ///   - format: The format as `SourceImage.format` names it (`jpeg`, `png`, ...).
    ///   - width, height: Its size in pixels.
    ///   - bands: Bands as stored (4 for CMYK or RGBA).
    ///   - bits: Bits per sample (8 or 16, ...).
    ///   - interlaced: Whether it is a progressive JPEG or an interlaced PNG.
    public static func bytes(format: String, width: Int, height: Int, bands: Int, bits: Int, interlaced: Bool) -> Int {
        let pixels = Double(max(0, width)) * Double(max(0, height))
        let bands = Double(max(1, bands)), sample = Double(max(1, bits)) / 8
        let perPixel: Double
        switch format {
        case "jpeg": perPixel = interlaced ? bands * 2 : 0
        case "png": perPixel = interlaced ? bands * sample : 0
        case "gif": perPixel = 8
        case "webp": perPixel = 4
        case "heif", "avif": perPixel = bands * sample + 4 * sample
        case "jxl": perPixel = bands * 4
        default: perPixel = bands * sample
        }
        let estimate = pixels * perPixel
        return estimate >= Double(Int.max) ? Int.max : Int(estimate)
    }
}
