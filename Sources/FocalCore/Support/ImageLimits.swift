/// Every limit that protects a process from hostile or accidental input and requests, in one
/// place, with defaults a server can live with. Each over-limit input or request is refused with
/// a `LimitExceeded` error that names the limit and its value, before any pixel is decoded.
///
/// | limit | default | code |
/// |---|---|---|
/// | `maxInputBytes` | 64 MiB | `input.too_large` |
/// | `maxPixels` | 100 000 000 | `input.too_many_pixels` |
/// | `maxSide` | 65 535 px | `input.too_many_pixels` |
/// | `maxAspectRatio` | 100 (long side / short side) | `input.extreme_aspect` |
/// | `maxDecodeBytes` | 256 MiB, estimated from the header and the input's size | `input.too_costly` |
/// | `maxJPEGScans` | 100 | `input.too_costly` |
/// | `maxPages` | 10 000 pages or frames in the file | `input.too_costly` |
/// | `maxFrames` | 400 frames of an animation rendered animated | `input.too_many_frames` |
/// | `maxRedactedFrames` | 40 frames of an animation redacted (each searched thoroughly) | `input.too_many_frames` |
/// | `maxAnimationPixels` | 200 000 000: frames × canvas decoded | `input.too_many_frames` |
/// | `maxAnimationOutputPixels` | 40 000 000: frames × output | `input.too_many_frames` |
/// | `maxDecodeTime` | 2 s, estimated from the file's structure (a TIFF's tiles) | `input.too_costly` |
/// | `timeout` | 30 s per input | `input.timeout` |
/// | `maxOutputSide` | 8192 px | `output.too_large` |
/// | `maxOutputPixels` | 16 777 216 (4096 × 4096) | `output.too_large` |
/// | `maxUpscale` | 8 × | `output.too_large` |
/// | `maxFilterWork` | 500 000 000: output pixels × kernel taps of `blur`, `sharpen`, `convolution` (× frames), and each further encode of `max_bytes` (its filters' taps plus the format's encode cost) | `output.too_large` |
/// | `maxSubjects` | 1000 | `request.invalid` |
///
/// Only one page of a multi-page file is ever decoded (the first, or the one `page(n)` picks); an animation (GIF, WebP) is decoded
/// frame by frame when its output animates. An animation over the frame limits is refused, or
/// answered with its first frame when `overlongAnimations` says so.
public struct ImageLimits: Hashable, Sendable {
    /// The largest input accepted, in bytes; default 64 MiB.
    public var maxInputBytes: Int
    /// The most pixels an image's header may claim; default 100 megapixels.
    public var maxPixels: Int
    /// The longest side an image's header may claim, in pixels; default 65 535.
    public var maxSide: Int
    /// The most the long side may exceed the short side, as a ratio; default 100.
    public var maxAspectRatio: Double
    /// The most memory one decode may need, estimated from the header (size, bands, bit depth,
    /// chroma subsampling, progressive or interlaced coding, format) with measured factors, and
    /// the encoded bytes it decodes from, in bytes; default 256 MiB.
    public var maxDecodeBytes: Int
    /// The most scans a JPEG may have (a normal progressive JPEG has about 10); default 100.
    public var maxJPEGScans: Int
    /// The most pages or frames a file may hold, though only the first is decoded: libvips reads
    /// every TIFF directory before the first pixel (half a million take seconds, every time the
    /// header is read); default 10 000.
    public var maxPages: Int
    /// The most time one decode may be estimated to take from the file's structure, before any
    /// pixel is decoded: a TIFF cut into tiny tiles takes a minute of CPU for a few megabytes
    /// (`DecodeCost.tiffTileSeconds`); default 2 s.
    public var maxDecodeTime: Duration
    /// The time one input may take from opening to encoding; default 30 s.
    public var timeout: Duration
    /// The longest side of an output, in pixels; default 8192.
    public var maxOutputSide: Int
    /// The most pixels of an output; default 16 777 216 (4096 × 4096).
    public var maxOutputPixels: Int
    /// How many times the crop may be enlarged to make the output, per side; default 8.
    public var maxUpscale: Double
    /// The most subjects accepted from a subjects file or a caller; default 1000.
    public var maxSubjects: Int
    /// The most work a request's convolving filters (`blur`, `sharpen`, `convolution`) may do:
    /// output pixels × kernel taps, over every frame and every encode `max_bytes` tries; default
    /// 500 000 000 (libvips convolves some 100 million pixel-taps a second on a 2.5 GHz Xeon
    /// core: about 5 s; `blur(150)` on a 4096 × 4096 output would take 90 s).
    public var maxFilterWork: Int

    /// The most frames an animated output may be made from; default 400.
    public var maxFrames: Int
    /// The most frames of an animation a redaction searches, each with every detector and the
    /// small-face pass (0.54 s a frame of 1298×865 on two cores); default 40.
    public var maxRedactedFrames: Int
    /// The most pixels decoding every frame of an animation may cost (frames × canvas); default
    /// 200 000 000 (libvips decodes a GIF at about 60 MP/s on a 2.5 GHz Xeon: some 3 s).
    public var maxAnimationPixels: Int
    /// The most pixels an animated output may hold in all its frames (frames × output size; the
    /// frames are held in memory until they are encoded); default 40 000 000.
    public var maxAnimationOutputPixels: Int
    /// What happens to an animation over `maxFrames`, `maxAnimationPixels` or
    /// `maxAnimationOutputPixels`; default `.refuse`.
    public var overlongAnimations: OverlongAnimations

    /// What happens to an animation too long to animate.
    public enum OverlongAnimations: String, Hashable, Sendable, CaseIterable {
        /// It is refused with `input.too_many_frames`.
        case refuse
        /// Its first frame is the output, as for a still image.
        case firstFrame = "first-frame"
    }

    /// The defaults listed on each property.
    public static let `default` = ImageLimits()

    /// Creates limits; every parameter defaults to the value documented on its property.
    public init(
        maxInputBytes: Int = 64 << 20, maxPixels: Int = 100_000_000, maxSide: Int = 65_535,
        maxAspectRatio: Double = 100, maxDecodeBytes: Int = 256 << 20, maxJPEGScans: Int = 100,
        timeout: Duration = .seconds(30), maxOutputSide: Int = 8192, maxOutputPixels: Int = 4096 * 4096,
        maxUpscale: Double = 8, maxSubjects: Int = 1000, maxPages: Int = 10_000, maxDecodeTime: Duration = .seconds(2),
        maxFrames: Int = 400, maxAnimationPixels: Int = 200_000_000, maxAnimationOutputPixels: Int = 40_000_000,
        overlongAnimations: OverlongAnimations = .refuse, maxRedactedFrames: Int = 40, maxFilterWork: Int = 500_000_000
    ) {
        self.maxFilterWork = maxFilterWork
        self.maxFrames = maxFrames
        self.maxRedactedFrames = maxRedactedFrames
        self.maxAnimationPixels = maxAnimationPixels
        self.maxAnimationOutputPixels = maxAnimationOutputPixels
        self.overlongAnimations = overlongAnimations
        self.maxInputBytes = maxInputBytes
        self.maxPixels = maxPixels
        self.maxSide = maxSide
        self.maxAspectRatio = maxAspectRatio
        self.maxDecodeBytes = maxDecodeBytes
        self.maxJPEGScans = maxJPEGScans
        self.timeout = timeout
        self.maxOutputSide = maxOutputSide
        self.maxOutputPixels = maxOutputPixels
        self.maxUpscale = maxUpscale
        self.maxSubjects = maxSubjects
        self.maxPages = maxPages
        self.maxDecodeTime = maxDecodeTime
    }

    /// Checks the work of a request's convolving filters: `taps` kernel taps a pixel on `frames`
    /// frames of `output`, encoded `tries` times.
    /// - Throws: `LimitExceeded` (`output.too_large`).
    public func check(filterTaps taps: Int, output: PixelSize, frames: Int = 1, tries: Int = 1) throws(LimitExceeded) {
        guard taps > 0 else { return }
        let work = Double(taps) * Double(output.area) * Double(max(1, frames)) * Double(max(1, tries))
        if work > Double(maxFilterWork) {
            throw LimitExceeded(
                .outputTooLarge, limit: "maxFilterWork", allowed: "\(maxFilterWork) pixel-taps",
                actual: "\(Int(saturating: work)) (\(taps) taps a pixel on \(frames) × \(output)\(tries > 1 ? ", \(tries) encodes" : "")); a smaller output or radius fits")
        }
    }

    /// How many encodes of `output` a search such as `max_bytes(N)`'s may make within
    /// `maxFilterWork`, each costing `taps` a pixel (the convolving filters' and the format's
    /// `encodeTaps`) beyond the `spent` pixel-taps of the first render.
    public func tries(taps: Int, output: PixelSize, spent: Int = 0) -> Int {
        let each = Double(max(1, taps)) * Double(output.area)
        let left = Double(maxFilterWork) - Double(max(0, spent))
        guard left > 0, each > 0 else { return 0 }
        return Int(rounding: (left / each).rounded(.down), within: 0...64)
    }

    /// Checks an input's byte count.
    /// - Throws: `LimitExceeded` (`input.too_large`).
    public func check(inputBytes: Int) throws(LimitExceeded) {
        if inputBytes > maxInputBytes {
            throw LimitExceeded(.inputTooLarge, limit: "maxInputBytes", allowed: "\(maxInputBytes) bytes", actual: "\(inputBytes) bytes")
        }
    }

    /// Checks the size an image's header claims: pixels, longest side, aspect ratio.
    /// - Throws: `LimitExceeded` (`input.too_many_pixels`, `input.extreme_aspect`).
    public func check(imageSize size: PixelSize) throws(LimitExceeded) {
        let long = max(size.width, size.height), short = max(1, min(size.width, size.height))
        if long > maxSide {
            throw LimitExceeded(.inputTooManyPixels, limit: "maxSide", allowed: "\(maxSide) px", actual: "\(size)")
        }
        if size.area > maxPixels {
            throw LimitExceeded(.inputTooManyPixels, limit: "maxPixels", allowed: "\(maxPixels) pixels", actual: "\(size)")
        }
        if Double(long) / Double(short) > maxAspectRatio {
            throw LimitExceeded(
                .inputExtremeAspect, limit: "maxAspectRatio", allowed: "\(Self.format(maxAspectRatio)):1", actual: "\(size)")
        }
    }

    /// Checks an output size and how much the crop it comes from must be enlarged.
    /// - Parameters:
    ///   - output: The size of the output.
    ///   - source: The largest crop the output can come from (the whole image at the output's
    ///     aspect), to bound the upscale; nil to check the size alone.
    /// - Throws: `LimitExceeded` (`output.too_large`).
    public func check(output: PixelSize, from source: PixelSize? = nil) throws(LimitExceeded) {
        if max(output.width, output.height) > maxOutputSide {
            throw LimitExceeded(.outputTooLarge, limit: "maxOutputSide", allowed: "\(maxOutputSide) px", actual: "\(output)")
        }
        if output.area > maxOutputPixels {
            throw LimitExceeded(.outputTooLarge, limit: "maxOutputPixels", allowed: "\(maxOutputPixels) pixels", actual: "\(output)")
        }
        if let source, source.width > 0, source.height > 0 {
            let scale = max(Double(output.width) / Double(source.width), Double(output.height) / Double(source.height))
            if scale > maxUpscale {
                throw LimitExceeded(
                    .outputTooLarge, limit: "maxUpscale", allowed: "\(Self.format(maxUpscale))×",
                    actual: "\(Self.format(scale))× (\(source) enlarged to \(output))")
            }
        }
    }

    /// Checks that an animation may be decoded frame by frame.
    /// - Parameters:
    ///   - frames: Its frames.
    ///   - canvas: The size of each frame.
    ///   - redacted: Whether every frame is searched for a redaction; default `false`.
    /// - Throws: `LimitExceeded` (`input.too_many_frames`).
    public func check(frames: Int, canvas: PixelSize, redacted: Bool = false) throws(LimitExceeded) {
        if frames > maxFrames {
            throw LimitExceeded(.inputTooManyFrames, limit: "maxFrames", allowed: "\(maxFrames) frames", actual: "\(frames) frames")
        }
        if redacted, frames > maxRedactedFrames {
            throw LimitExceeded(
                .inputTooManyFrames, limit: "maxRedactedFrames", allowed: "\(maxRedactedFrames) frames redacted", actual: "\(frames) frames")
        }
        let (pixels, overflow) = frames.multipliedReportingOverflow(by: canvas.area)
        if overflow || pixels > maxAnimationPixels {
            throw LimitExceeded(
                .inputTooManyFrames, limit: "maxAnimationPixels", allowed: "\(maxAnimationPixels) pixels",
                actual: "\(frames) frames of \(canvas)")
        }
    }

    /// Checks the pixels of an animated output.
    /// - Throws: `LimitExceeded` (`input.too_many_frames`).
    public func check(frames: Int, output: PixelSize) throws(LimitExceeded) {
        let (pixels, overflow) = frames.multipliedReportingOverflow(by: output.area)
        if overflow || pixels > maxAnimationOutputPixels {
            throw LimitExceeded(
                .inputTooManyFrames, limit: "maxAnimationOutputPixels", allowed: "\(maxAnimationOutputPixels) pixels",
                actual: "\(frames) frames of \(output)")
        }
    }

    /// Checks a count of subjects.
    /// - Throws: `LimitExceeded` (`request.invalid`).
    public func check(subjects count: Int) throws(LimitExceeded) {
        if count > maxSubjects {
            throw LimitExceeded(.requestInvalid, limit: "maxSubjects", allowed: "\(maxSubjects)", actual: "\(count) subjects")
        }
    }

    /// A number as the limits' messages write it: whole, or to two decimals.
    package static func format(_ value: Double) -> String {
        if abs(value) < 1e15, let whole = Int(exactly: value) { return String(whole) }
        return String((value * 100).rounded() / 100)
    }
}
