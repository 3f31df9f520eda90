public import FocalCore

/// Everything about one output format, in one row: what the encoder, the automatic format, the
/// command line, the option table and the element read of it.
public struct FormatDescriptor: Sendable {
    /// The format.
    public let format: ImageFormat
    /// Its names in options (`format(jpg)`), the canonical one first.
    public let names: [String]
    /// Its file extensions, the usual one first.
    public let extensions: [String]
    /// Its media type.
    public let mediaType: String
    /// The longest side it holds, when it has such a limit.
    public let maxSide: Int?
    /// The most pixels it holds, when its encoder's memory needs a limit.
    public let maxPixels: Int?
    /// The encoder's setting for a Focal quality (1...100, on JPEG's scale).
    public let encoderQuality: @Sendable (Int) -> Int
    /// Where the automatic format (`format(auto)`) ranks it among what a client accepts, the
    /// best first; nil when it never picks it.
    public let automaticRank: Int?
    /// Whether an input in this format keeps it when a request names none.
    public let keptFromInput: Bool
    /// Whether it can hold an animation.
    public let animates: Bool
    /// A 1×1 image in this format as a `data:` URI, which a browser decodes to tell whether it
    /// can (the element's `Accept` header); nil for a format every browser decodes.
    public let browserSample: String?
    /// Whether it holds alpha; when not, the shim flattens alpha on white before saving.
    public let holdsAlpha: Bool
    /// Whether browsers show it (every one, or those that decode `browserSample`): the element
    /// lists only these in its `Accept` header.
    public let browsers: Bool
    /// Its libvips saver, named by suffix with its options in libvips's form
    /// (`.jpg[Q=85,strip]`), for an encoder quality (`encoderQuality`), the request's settings and
    /// the output's size. Metadata is removed whatever it says.
    let saver: @Sendable (_ quality: Int, _ settings: EncodeSettings, _ size: PixelSize) -> String

    /// Whether its quality changes its bytes (JPEG, WebP, AVIF): what `max_bytes(N)` can lower.
    public var takesQuality: Bool { format == .jpeg || format == .webp || format == .avif }

    /// What one more encode of an output pixel costs, in the pixel-taps of
    /// `ImageLimits.maxFilterWork`, for the formats whose quality `max_bytes(N)` lowers (0 for
    /// the others): each try of its search is counted in the filters' work bound. Measured with
    /// libvips 8.14 on a 4096² noise image (an encoder's worst case) against a 9 × 9 convolution
    /// on one core: JPEG 7 ns a pixel (10 taps), WebP 144 ns (200), AVIF 1.2 µs (1,600).
    public var encodeTaps: Int {
        switch format {
        case .jpeg: 10
        case .webp: 200
        case .avif: 1600
        default: 0
        }
    }

    /// Whether an output of `size` fits it.
    public func holds(_ size: PixelSize) -> Bool {
        if let maxSide, max(size.width, size.height) > maxSide { return false }
        if let maxPixels, size.area > maxPixels { return false }
        return true
    }

    /// Every format, in the order options list them.
    public static let all: [FormatDescriptor] = [
        FormatDescriptor(
            format: .jpeg, names: ["jpeg", "jpg"], extensions: ["jpg", "jpeg"], mediaType: "image/jpeg",
            // 16-bit sizes in the header, less the encoder's margin.
            maxSide: 65_500, maxPixels: nil, encoderQuality: { $0 }, automaticRank: nil, keptFromInput: true, animates: false,
            browserSample: nil, holdsAlpha: false,
            // Optimised Huffman tables need a second pass over every coefficient, held in memory
            // (300 MB for 100 MP): only outputs up to 16 MP (the library's default limit) get them.
            browsers: true, saver: { quality, _, size in ".jpg[Q=\(quality),strip,optimize_coding=\(size.area <= 4096 * 4096)]" }),
        FormatDescriptor(
            format: .png, names: ["png"], extensions: ["png"], mediaType: "image/png", maxSide: nil, maxPixels: nil,
            encoderQuality: { $0 }, automaticRank: nil, keptFromInput: true, animates: false, browserSample: nil,
            holdsAlpha: true, browsers: true, saver: { _, _, _ in ".png[compression=6,strip]" }),
        FormatDescriptor(
            format: .webp, names: ["webp"], extensions: ["webp"], mediaType: "image/webp",
            maxSide: 16_383, maxPixels: nil, encoderQuality: { $0 }, automaticRank: 1, keptFromInput: true, animates: true,
            browserSample: "data:image/webp;base64,UklGRhoAAABXRUJQVlA4TA4AAAAvAAAAAAcQEf0PRET/Aw==", holdsAlpha: true,
            browsers: true, saver: { quality, settings, _ in settings.options.lossless ? ".webp[lossless,strip]" : ".webp[Q=\(quality),strip]" }),
        // AV1's scale at 15 less (85 gives 70) measured about as close to the source (SSIM) as
        // WebP at 85 in 66-82 % of its bytes (`make bench-formats`); libaom holds about 20 bytes
        // a pixel while it encodes, so 4 MP (80 MB) at most.
        FormatDescriptor(
            format: .avif, names: ["avif"], extensions: ["avif"], mediaType: "image/avif",
            maxSide: nil, maxPixels: 2048 * 2048, encoderQuality: { max(1, $0 - 15) }, automaticRank: 0, keptFromInput: true,
            animates: false,
            browserSample: "data:image/avif;base64,AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAAOptZXRhAAAAAAAAACFoZGxyAAAAAAAAA"
                + "ABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAABAAAAImlsb2MAAAAAREAAAQABAAAAAAEOAAEAAAAAAAAAGAAAACNpa"
                + "W5mAAAAAAABAAAAFWluZmUCAAAAAAEAAGF2MDEAAAAAamlwcnAAAABLaXBjbwAAABNjb2xybmNseAACAAIABoAAAAAMYXYxQ"
                + "4EADAAAAAAUaXNwZQAAAAAAAAABAAAAAQAAABBwaXhpAAAAAAMICAgAAAAXaXBtYQAAAAAAAAABAAEEgYIDhAAAACBtZGF0E"
                + "gAKCBgABggQEDQgMgobAAAAQACwE16A",
            holdsAlpha: true,
            // Effort 0 (libaom's fastest speed) was measured smaller and as close to the source
            // (SSIM) as efforts 1-3 at 6-9x less time (`make bench-formats`); 8-bit. libvips
            // 8.14's buffer saver for HEIF answers to `.heif` only, with AV1 asked for.
            browsers: true, saver: { quality, settings, _ in
                settings.options.lossless
                    ? ".heif[lossless,compression=av1,effort=0,bitdepth=8,strip]" : ".heif[Q=\(quality),compression=av1,effort=0,bitdepth=8,strip]"
            }),
        // cgif (libvips's GIF saver) quantises each frame to 256 colours with libimagequant; the
        // quality has no meaning for it. A GIF input stays a GIF, one frame too, as in thumbor
        // (its colours were 256 already).
        FormatDescriptor(
            format: .gif, names: ["gif"], extensions: ["gif"], mediaType: "image/gif", maxSide: 65_535, maxPixels: nil,
            encoderQuality: { $0 }, automaticRank: nil, keptFromInput: true, animates: true, browserSample: nil, holdsAlpha: true,
            browsers: true, saver: { _, _, _ in ".gif[strip]" }),
        // thumbor's HEIF output (HEVC in HEIF, `format(heic)` or `format(heif)`), where this
        // libvips has an HEVC encoder (`writable`); x265 holds about as much as libaom, so 4 MP.
        FormatDescriptor(
            format: .heic, names: ["heic", "heif"], extensions: ["heic", "heif"], mediaType: "image/heic", maxSide: nil,
            maxPixels: 2048 * 2048, encoderQuality: { $0 }, automaticRank: nil, keptFromInput: false, animates: false,
            browserSample: nil, holdsAlpha: true, browsers: false,
            saver: { quality, settings, _ in
                settings.options.lossless ? ".heif[lossless,compression=hevc,bitdepth=8,strip]" : ".heif[Q=\(quality),compression=hevc,bitdepth=8,strip]"
            }),
        // imagor's TIFF output (deflate, lossless); a TIFF source comes out as PNG unless asked, as
        // thumbor's tests expect.
        FormatDescriptor(
            format: .tiff, names: ["tiff", "tif"], extensions: ["tiff", "tif"], mediaType: "image/tiff", maxSide: nil, maxPixels: nil,
            encoderQuality: { $0 }, automaticRank: nil, keptFromInput: false, animates: false, browserSample: nil, holdsAlpha: true,
            browsers: false, saver: { _, _, _ in ".tif[compression=deflate,strip]" }),
        // imagor's JPEG XL output; libjxl at effort 4 holds about 10 bytes a pixel, so 16 MP.
        FormatDescriptor(
            format: .jxl, names: ["jxl"], extensions: ["jxl"], mediaType: "image/jxl", maxSide: nil, maxPixels: 4096 * 4096,
            encoderQuality: { $0 }, automaticRank: nil, keptFromInput: false, animates: false, browserSample: nil, holdsAlpha: true,
            browsers: false,
            saver: { quality, settings, _ in settings.options.lossless ? ".jxl[lossless,effort=4,strip]" : ".jxl[Q=\(quality),effort=4,strip]" }),
    ]

    /// The rows by format.
    static let table: [ImageFormat: FormatDescriptor] = Dictionary(all.map { ($0.format, $0) }, uniquingKeysWith: { first, _ in first })

    /// The formats this libvips writes, found once by writing a 2 × 2 image in each (HEIC needs an
    /// HEVC encoder in libheif, JPEG XL libjxl; a Debian without them writes the others).
    public static let writable: Set<ImageFormat> = Set(
        all.map(\.format).filter { format in
            guard let pixels = PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 128, count: 12)) else { return false }
            return (try? RenderedImage(pixels: pixels).encode(format)) != nil
        })

    /// Inputs (as libvips names their format) that come out in another format when a request
    /// names none: a TIFF as PNG (lossless, alpha kept), as thumbor's own tests expect.
    public static let keptAs: [String: ImageFormat] = ["tiff": .png]

    /// The formats the automatic format may choose, the best first.
    public static var automatic: [ImageFormat] {
        all.filter { $0.automaticRank != nil }.sorted { ($0.automaticRank ?? 0) < ($1.automaticRank ?? 0) }.map(\.format)
    }
}
