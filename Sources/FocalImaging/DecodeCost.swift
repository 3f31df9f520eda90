import FocalCore

/// The memory one decode of an image needs, estimated from its header alone, so that a
/// decompression bomb is refused before it is decoded.
///
/// Decoders that stream (baseline JPEG, non-interlaced PNG, tiled TIFF, lossy WebP) hold a few
/// rows at a time; shrink-on-load keeps their output small. The rest hold the whole image. The
/// factors are bytes per pixel measured with `python3 -m focalscripts.decodecost` (peak resident memory of a
/// shrink-on-load decode above that of a tiny one, libvips 8.14 on Debian 12, photos of 4 to 36
/// MP), rounded up:
///
/// | format | measured | estimate |
/// |---|---|---|
/// | progressive JPEG: 2 bytes per DCT coefficient | 4:2:0 3.3, 4:4:4 6.3, grey 2.0, CMYK 9.2 | 2.5 × coded samples (1.5, 3, 1, 4) |
/// | interlaced PNG: the whole image, and a copy of part of it | RGB 2.1, RGBA 6.3, 16-bit RGBA 11.5, grey 0.6 | 1.6 × bands × bytes per sample |
/// | GIF: an RGBA canvas and the previous frame | 6.4 | 8 |
/// | WebP: lossless decodes whole ARGB | 4.4 (lossy 0.2) | 5 |
/// | HEIF, AVIF: YUV planes and RGB | 7.5 | 2 × bands × bytes per sample + 2 |
/// | TIFF: one strip can be the whole image | 1.9 | bands × bytes per sample |
///
/// The encoded bytes count too: libvips decodes from its own copy while the caller keeps its own.
public enum DecodeCost {
    /// Estimated bytes to decode an image with this header; never overflows.
    /// - Parameters:
    ///   - format: The format as `SourceImage.format` names it (`jpeg`, `png`, ...).
    ///   - width, height: Its size in pixels.
    ///   - bands: Bands as stored (4 for CMYK or RGBA).
    ///   - bits: Bits per sample (8 or 16, ...).
    ///   - interlaced: Whether it is a progressive JPEG or an interlaced PNG.
    ///   - chroma: A JPEG's chroma subsampling as libvips names it ("4:2:0"); nil when unknown,
    ///     and then every band is counted at full resolution. Default nil.
    ///   - inputBytes: The size of the encoded input, held twice while it decodes; default 0.
    public static func bytes(
        format: String, width: Int, height: Int, bands: Int, bits: Int, interlaced: Bool, chroma: String? = nil,
        inputBytes: Int = 0
    ) -> Int {
        let pixels = Double(max(0, width)) * Double(max(0, height))
        let bands = Double(max(1, bands)), sample = Double(max(1, bits)) / 8
        let perPixel: Double
        switch format {
        case "jpeg": perPixel = interlaced ? 2.5 * codedSamples(bands: bands, chroma: chroma) : 0
        case "png": perPixel = interlaced ? 1.6 * bands * sample : 0
        case "gif": perPixel = 8
        case "webp": perPixel = 5
        case "heif", "avif": perPixel = 2 * bands * sample + 2
        case "jxl": perPixel = bands * 4
        default: perPixel = bands * sample
        }
        let estimate = pixels * perPixel + 2 * Double(max(0, inputBytes))
        return estimate >= Double(Int.max) ? Int.max : Int(estimate)
    }

    /// The CPU seconds libvips 8.14 is estimated to spend on the tiles of a tiled TIFF, from its
    /// layout alone: each tile costs about 20 µs plus 0.18 µs for every tile in its row (libvips
    /// reads a tiled TIFF tile by tile, and a row of many small tiles is read again and again).
    /// Measured with `vips thumbnail` on deflate TIFFs of 16-px tiles, 1024 rows high, 1,000 to
    /// 20,000 px wide (62 to 1,250 tiles a row: 20, 24, 33, 72, 179 and 221 µs a tile) on a
    /// 2.5 GHz Xeon; the line lies at or above every measurement but the last, within 20 % of it.
    /// Strips cost no more than their pixels (10,000 one-row strips: 0.5 s), so they count 0.
    /// - Parameter layout: The TIFF's first directory.
    /// - Returns: Seconds; 0 for a TIFF in strips.
    public static func tiffTileSeconds(_ layout: TIFFLayout) -> Double {
        let tiles = layout.tiles
        guard tiles.stored > 0 else { return 0 }
        return Double(tiles.stored) * (20 + 0.18 * Double(tiles.across)) / 1e6
    }

    /// The most bytes one decoded TIFF tile may hold: libvips 8.14 refuses a larger tile as
    /// "tile size out of range" (a tile of 5,760² RGB loads, one of 5,776² does not).
    public static let tiffMaxTileBytes = 100_000_000

    /// The DCT coefficients a JPEG codes per pixel: every band at full resolution, except the two
    /// chroma bands of a three-band image with subsampled chroma.
    static func codedSamples(bands: Double, chroma: String?) -> Double {
        guard bands == 3, let chroma else { return bands }
        switch chroma {
        case "4:2:0", "4:1:1": return 1.5
        case "4:2:2", "4:4:0": return 2
        default: return bands
        }
    }
}
