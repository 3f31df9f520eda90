internal import CFocalVips
public import FocalCore
public import FocalRuntime
public import Foundation

/// An image whose header has been read and checked against the limits, ready to be decoded at
/// any scale.
///
/// Opening reads only the header: every limit that the header can decide (bytes, pixels, side,
/// aspect ratio, estimated decode memory, JPEG scans, the output asked for) is checked before any
/// pixel is decoded. Sizes are those of the oriented image (EXIF orientation applied); only the
/// first frame or page is used. Decoding uses shrink-on-load, so a small proxy or output never
/// decodes the full resolution when the format allows (JPEG, WebP, HEIF). Every decode stops when
/// the image's deadline passes.
public final class SourceImage: @unchecked Sendable {
    let handle: OpaquePointer
    // libvips sources rewind between decodes, so decodes of one source take turns.
    let lock = NSLock()

    /// The oriented size in pixels.
    public let size: PixelSize
    /// The EXIF orientation that was applied (1...8).
    public let orientation: Int
    /// The input format: `jpeg`, `png`, `webp`, `tiff`, `gif`, `heif`, `avif` (an AVIF, which
    /// libvips reads as HEIF), `jxl`.
    public let format: String
    /// A label for messages: the path, or "bytes".
    public let name: String
    /// Bands as stored (alpha included), bits per sample, and whether it is progressive or
    /// interlaced: what the decode cost was estimated from.
    public let bands: Int, bits: Int, interlaced: Bool
    /// Frames or pages in the file; only the first is used. 1 when one page was picked (`page`).
    public let pages: Int
    /// The page picked when opened (0-based), or nil: the first, or every frame of an animation.
    public let page: Int?
    /// Degrees anticlockwise the oriented image was turned when opened (0, 90, 180, 270).
    public let turn: Int
    /// The memory a decode of it is estimated to need (`DecodeCost`), its encoded bytes included;
    /// known once the header has been checked.
    public private(set) var decodeBytes = 0
    /// A GIF's blocks as `GIFBlocks` walked them, for `animation()`; nil for other formats.
    var gifLayout: GIFBlocks.Layout?
    /// The limits it was opened with.
    public let limits: ImageLimits
    /// When work on this image must be done; set when it is opened.
    public let deadline: Deadline

    private init(
        handle: OpaquePointer, info: focal_vips_info, signature: String, name: String, limits: ImageLimits, deadline: Deadline, page: Int?,
        turn: Int
    ) {
        self.page = page
        self.turn = turn
        self.handle = handle
        self.name = name
        self.limits = limits
        self.deadline = deadline
        size = PixelSize(width: Int(info.width), height: Int(info.height))
        orientation = Int(info.orientation)
        let loaded = Self.formatName(Self.loaderName(info))
        format = loaded == "heif" && signature == "avif" ? "avif" : loaded
        bands = Int(info.bands)
        bits = Int(info.bits)
        interlaced = info.interlaced != 0
        pages = page != nil ? 1 : max(1, Int(info.pages))
    }

    deinit { focal_vips_source_free(handle) }

    static func loaderName(_ info: focal_vips_info) -> String {
        withUnsafeBytes(of: info.loader) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// The format a libvips loader reads: "VipsForeignLoadJpegSource" or "jpegload_source" -> "jpeg".
    static func formatName(_ loader: String) -> String {
        var name = loader
        if name.hasPrefix("VipsForeignLoad") { name.removeFirst("VipsForeignLoad".count) }
        for suffix in ["Source", "_source", "load"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        // libvips's GIF loader is libnsgif's: VipsForeignLoadNsgifSource.
        return name.lowercased() == "nsgif" ? "gif" : name.lowercased()
    }

    /// Opens a file: only a regular file, read whole up to the byte limit, then as `open(data:)`.
    /// - Parameters:
    ///   - path: The file.
    ///   - limits: The limits; default `.default`.
    ///   - deadline: When work on it must be done; default `limits.timeout` from now.
    ///   - page: One page or frame to use alone (0-based), as `open(data:)`; default nil.
    ///   - turn: Degrees anticlockwise to turn the image first, as `open(data:)`; default 0.
    /// - Throws: `ImagingError` or `LimitExceeded`, naming the path.
    public static func open(
        path: String, limits: ImageLimits = .default, deadline: Deadline? = nil, page: Int? = nil, turn: Int = 0
    ) throws -> SourceImage {
        let data: Data
        do {
            data = try InputFile.read(path, maxBytes: limits.maxInputBytes)
        } catch {
            if let limit = error.limit { throw limit }
            throw ImagingError(error.code, error.message, source: path, cause: error.cause)
        }
        return try open(data: data, name: path, limits: limits, deadline: deadline, page: page, turn: turn)
    }

    /// Reads the header of image bytes and checks it against the limits; libvips works on its
    /// own copy.
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - name: A label for error messages (a URL, a file name); default "bytes".
    ///   - limits: The limits; default `.default`.
    ///   - deadline: When work on it must be done; default `limits.timeout` from now.
    ///   - page: One page or frame (0-based) used alone, as a still (imagor's `page(n)`): the image's
    ///     size is that page's. Default nil: the first page, or every frame of an animation.
    ///   - turn: Degrees anticlockwise (0, 90, 180, 270) the oriented image is turned before
    ///     anything else (imagor's `orient`): its size, crops and frames are the turned image's.
    ///     Default 0.
    /// - Throws: `ImagingError` (`input.empty`, `input.not_an_image`, `input.unsupported`,
    ///   `input.corrupt`; `request.invalid` for a page the image does not have or a turn that is
    ///   not a quarter) or `LimitExceeded` (`input.too_many_frames` for a frame past `maxFrames`,
    ///   which would take as many decodes), naming the input.
    public static func open(
        data: Data, name: String = "bytes", limits: ImageLimits = .default, deadline: Deadline? = nil, page: Int? = nil, turn: Int = 0
    ) throws -> SourceImage {
        try Vips.start()
        guard [0, 90, 180, 270].contains(turn) else {
            throw ImagingError(.requestInvalid, "a turn of \(turn)° is not one of 0, 90, 180, 270", source: name)
        }
        if let page {
            guard page >= 0 else { throw ImagingError(.requestInvalid, "page \(page) is out of range; pages count from 1", source: name) }
            // A GIF's frame is drawn over the ones before it: page N costs N frame decodes.
            if page >= limits.maxFrames {
                throw LimitExceeded(
                    .inputTooManyFrames, limit: "maxFrames", allowed: "page \(limits.maxFrames)", actual: "page \(page + 1)", source: name)
            }
        }
        let deadline = deadline ?? Deadline(in: limits.timeout)
        if data.isEmpty { throw ImagingError(.inputEmpty, "the input is empty (0 bytes); expected an image", source: name) }
        do {
            try limits.check(inputBytes: data.count)
        } catch {
            throw error.naming(name)
        }
        // Decide by the bytes themselves, whatever a name or a server claims.
        guard let signature = ImageSignature.format(of: data) else { throw unrecognised(data, name: name) }
        if signature == "jpeg" {
            let scans = JPEGScans.count(in: data, limit: limits.maxJPEGScans)
            if scans > limits.maxJPEGScans {
                throw LimitExceeded(
                    .inputTooCostly, limit: "maxJPEGScans", allowed: "\(limits.maxJPEGScans) scans",
                    actual: "more than \(limits.maxJPEGScans) scans", source: name)
            }
        }
        var tileRow = 0
        if signature == "tiff" {
            let count = TIFFPages.count(in: data, limit: limits.maxPages)
            if count > limits.maxPages {
                throw LimitExceeded(
                    .inputTooCostly, limit: "maxPages", allowed: "\(limits.maxPages) pages", actual: "more than \(limits.maxPages) pages",
                    source: name)
            }
            // The page decoded is the one whose tiles are checked.
            let layout = TIFFLayout.read(from: data, page: page ?? 0)
            if let page, page > 0, page < count, layout == nil {
                throw ImagingError(.inputCorrupt, "page \(page + 1) of the TIFF cannot be read", source: name)
            }
            if let layout {
                try checkTiles(layout, limits: limits, name: name)
                // libvips keeps a row of tiles while it reads: more than the image when tiles overhang it.
                let (row, overflow) = layout.tiles.across.multipliedReportingOverflow(by: layout.tileBytes)
                tileRow = overflow ? Int.max : row
            }
        }
        let gif = signature == "gif" ? GIFBlocks.read(data) : nil
        var info = focal_vips_info()
        var opened: OpaquePointer?
        let (status, text) = withErrorText { err, len in
            data.withUnsafeBytes { raw in
                focal_vips_open(raw.baseAddress, raw.count, Int32(clamping: page ?? 0), Int32(clamping: turn), &opened, &info, err, len)
            }
        }
        guard status == FOCAL_VIPS_OK, let handle = opened else {
            throw Self.error(status, text, name: name, loader: loaderName(info), signature: signature)
        }
        if let page {
            let has = info.pages == 1 ? "1 page" : "\(info.pages) pages"
            do {
                guard page < Int(info.pages) else {
                    throw ImagingError(.requestInvalid, "page \(page + 1) was asked for, but the image has \(has); page(n) counts from 1", source: name)
                }
                if Int(info.pages) > limits.maxPages {
                    throw LimitExceeded(.inputTooCostly, limit: "maxPages", allowed: "\(limits.maxPages) pages", actual: "\(has)", source: name)
                }
                // An animation's frame N is drawn over the N before it: it costs what N + 1 frames do.
                let format = formatName(loaderName(info))
                if format == "gif" || format == "webp" {
                    do {
                        try limits.check(frames: page + 1, canvas: PixelSize(width: Int(info.width), height: Int(info.height)))
                    } catch {
                        throw error.naming(name)
                    }
                }
            } catch {
                focal_vips_source_free(handle)
                throw error
            }
        }
        let image = SourceImage(handle: handle, info: info, signature: signature, name: name, limits: limits, deadline: deadline, page: page, turn: turn)
        image.gifLayout = gif
        let chroma = withUnsafeBytes(of: info.chroma) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        try image.checkHeader(chroma: chroma.isEmpty ? nil : chroma, inputBytes: data.count, atLeast: tileRow)
        return image
    }

    /// Refuses a tiled TIFF whose tiles libvips would refuse (larger than
    /// `DecodeCost.tiffMaxTileBytes`) or whose tiles would take longer than `maxDecodeTime`.
    private static func checkTiles(_ layout: TIFFLayout, limits: ImageLimits, name: String) throws(LimitExceeded) {
        guard let tileWidth = layout.tileWidth, let tileHeight = layout.tileHeight else { return }
        let tile = "\(tileWidth)×\(tileHeight)"
        if layout.tileBytes > DecodeCost.tiffMaxTileBytes {
            throw LimitExceeded(
                .inputTooCostly, limit: "the bytes of a TIFF tile libvips decodes", allowed: "\(DecodeCost.tiffMaxTileBytes / 1_000_000) MB",
                actual: "\(layout.tileBytes / 1_000_000) MB in each \(tile) tile",
                source: name)
        }
        let seconds = DecodeCost.tiffTileSeconds(layout)
        let allowed = Double(limits.maxDecodeTime.components.seconds) + Double(limits.maxDecodeTime.components.attoseconds) / 1e18
        if seconds > allowed {
            throw LimitExceeded(
                .inputTooCostly, limit: "maxDecodeTime", allowed: "\(ImageLimits.format(allowed)) s",
                actual: "about \(ImageLimits.format(seconds)) s for \(layout.tiles.stored) tiles of \(tile)",
                source: name)
        }
    }

    /// Checks the header against the limits and estimates the decode's memory.
    /// - Parameter atLeast: Bytes the decode holds whatever the estimate says (a TIFF's row of tiles).
    private func checkHeader(chroma: String?, inputBytes: Int, atLeast: Int) throws(LimitExceeded) {
        do throws(LimitExceeded) {
            try limits.check(imageSize: size)
            if pages > limits.maxPages {
                throw LimitExceeded(.inputTooCostly, limit: "maxPages", allowed: "\(limits.maxPages) pages", actual: "\(pages) pages")
            }
            let cost = DecodeCost.bytes(
                format: format, width: size.width, height: size.height, bands: bands, bits: bits, interlaced: interlaced,
                chroma: chroma, inputBytes: inputBytes)
            decodeBytes = max(cost, atLeast)
            if decodeBytes > limits.maxDecodeBytes {
                let cost = decodeBytes
                let what = interlaced ? (format == "jpeg" ? "progressive " : "interlaced ") : ""
                throw LimitExceeded(
                    .inputTooCostly, limit: "maxDecodeBytes", allowed: "\(limits.maxDecodeBytes >> 20) MiB",
                    actual: "about \(cost >> 20) MiB for a \(size) \(what)\(format.uppercased())")
            }
        } catch {
            throw error.naming(name)
        }
    }

    /// Checks that an output of `output` pixels may be made from this image, before decoding.
    /// - Parameter output: The output size; the upscale is measured against the largest crop of
    ///   its aspect.
    /// - Throws: `LimitExceeded` (`output.too_large`) naming this image.
    public func checkOutput(_ output: PixelSize) throws(LimitExceeded) {
        let ratio = Double(output.width) / Double(max(1, output.height))
        let fillWidth = min(Double(size.width), Double(size.height) * ratio)
        let fill = PixelSize(width: max(1, Int(fillWidth)), height: max(1, Int((fillWidth / ratio).rounded())))
        do {
            try limits.check(output: output, from: fill)
        } catch {
            throw error.naming(name)
        }
    }

    /// The formats named in messages, those every supported libvips build reads.
    static let readable = "JPEG, PNG, WebP, GIF, TIFF, HEIF or AVIF"

    /// The error for bytes that start like no format Focal reads: `input.unsupported` when a
    /// libvips loader Focal does not accept recognises them (a matrix file, PPM, SVG, PDF), else
    /// `input.not_an_image`. Only loaders' signature checks run, on the first 64 KiB; no header
    /// is read.
    private static func unrecognised(_ data: Data, name: String) -> ImagingError {
        if let refused = ImageSignature.refusedFormat(of: data) {
            return ImagingError(
                .inputUnsupported, "the input is \(refused.name), which Focal does not read: \(refused.why); convert it to PNG or JPEG", source: name)
        }
        var loader = [CChar](repeating: 0, count: 64)
        let head = data.prefix(64 << 10)
        let (status, text) = withErrorText { err, len in
            head.withUnsafeBytes { raw in
                loader.withUnsafeMutableBufferPointer { focal_vips_identify(raw.baseAddress, raw.count, $0.baseAddress, $0.count, err, len) }
            }
        }
        if status == FOCAL_VIPS_ERR_UNSUPPORTED {
            let format = formatName(String(decoding: loader.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)).uppercased()
            return ImagingError(
                .inputUnsupported, "the input is \(format.isEmpty ? "a format" : format), which Focal does not accept; use \(readable)",
                source: name, cause: text)
        }
        return ImagingError(
            .inputNotAnImage, "the input is \(ImageSignature.describe(data)), not an image in a format Focal reads (\(readable))",
            source: name, cause: status == FOCAL_VIPS_OK ? nil : text)
    }

    /// Whether this process's libvips decodes a format `ImageSignature` names: the loader exists
    /// and libvips does not block it as unsafe (JPEG XL's is blocked on Debian's libvips 8.14).
    static func decodes(_ signature: String) -> Bool {
        let format = signature == "avif" ? "heif" : signature
        return focal_vips_loader_usable(format + "load_source") != 0
    }

    /// The typed error for a failed shim call.
    static func error(_ status: focal_vips_status, _ text: String, name: String, loader: String = "", signature: String? = nil) -> any Error {
        switch status {
        case FOCAL_VIPS_ERR_NOT_IMAGE:
            if let signature, decodes(signature) {
                // Bytes that start like a format Focal reads but that its loader does not take
                // (a TIFF whose first directory is cut off): a damaged file, not another format.
                return ImagingError(.inputCorrupt, "the \(signature.uppercased()) data is truncated or corrupt", source: name, cause: text)
            }
            if let signature {
                return ImagingError(
                    .inputUnsupported, "the input is \(signature == "jxl" ? "JPEG XL" : signature.uppercased()), which this build of Focal does not decode; use \(readable)",
                    source: name, cause: text)
            }
            return ImagingError(
                .inputNotAnImage, "the input is not an image in a format Focal reads (\(readable))", source: name, cause: text)
        case FOCAL_VIPS_ERR_UNSUPPORTED:
            let format = loader.isEmpty ? "this format" : formatName(loader).uppercased()
            return ImagingError(
                .inputUnsupported, "the input is \(format), which Focal does not accept; use \(readable)",
                source: name, cause: text)
        case FOCAL_VIPS_ERR_CORRUPT:
            let what = signature.map { "the \($0.uppercased()) data" } ?? "the image"
            return ImagingError(.inputCorrupt, "\(what) is truncated or corrupt", source: name, cause: text)
        case FOCAL_VIPS_ERR_TIMEOUT:
            return LimitExceeded(.inputTimeout, limit: "timeout", allowed: "the input's deadline", actual: "more", source: name)
        case FOCAL_VIPS_ERR_ENCODE:
            return ImagingError(.outputEncodeFailed, "the output could not be encoded", source: name, cause: text)
        default:
            return ImagingError(.internalFailure, "image processing failed", source: name, cause: text)
        }
    }

    /// Decodes a copy whose long side is `longSide` pixels, as RGB.
    /// - Parameters:
    ///   - longSide: The long side of the copy.
    ///   - enlarge: Whether a smaller image is scaled up to it; default `false`.
    /// - Throws: `ImagingError` (`input.corrupt`) or `LimitExceeded` (`input.timeout`).
    public func proxy(longSide: Int, enlarge: Bool = false) throws -> PixelBuffer {
        let scaled = size.fitting(longSide: longSide, enlarge: enlarge)
        return try pixels(width: scaled.width, height: scaled.height)
    }

    /// Decodes the whole oriented image scaled to exactly `width` × `height`, as RGB.
    /// - Throws: `ImagingError` (`input.corrupt`) or `LimitExceeded` (`input.timeout`), naming this image.
    public func pixels(width: Int, height: Int) throws -> PixelBuffer {
        try decode(width: width, height: height).pixels()
    }

    /// Decodes the whole oriented image scaled to exactly `width` × `height`, into memory.
    /// - Throws: `ImagingError` (`input.corrupt`) or `LimitExceeded` (`input.timeout`), naming this image.
    public func decode(width: Int, height: Int) throws -> RenderedImage {
        try StepClock.time("decode") { try decodeNow(width: width, height: height) }
    }

    private func decodeNow(width: Int, height: Int) throws -> RenderedImage {
        try deadline.check(source: name)
        guard let w = Int32(exactly: width), let h = Int32(exactly: height), w > 0, h > 0 else {
            throw ImagingError(.internalFailure, "decode size \(width)x\(height) is out of range", source: name)
        }
        lock.lock()
        defer { lock.unlock() }
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_thumbnail(handle, w, h, deadline.millisecondsLeft, &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw Self.error(status, text, name: name, signature: format) }
        return RenderedImage(handle: out)
    }

    /// Crops `crop` (oriented pixels) and resizes it to exactly `output`, decoding at the smallest
    /// scale that still gives every output pixel (shrink-on-load), with one Lanczos resample.
    /// - Throws: `LimitExceeded` when the output is over the limits or the deadline passes;
    ///   `ImagingError` (`input.corrupt`) naming this image.
    public func render(crop: PixelRect, to output: PixelSize) throws -> RenderedImage {
        let g = try renderGeometry(crop: crop, to: output)
        lock.lock()
        defer { lock.unlock() }
        var out: OpaquePointer?
        let (status, text) = withErrorText {
            focal_vips_render(handle, g.scaledWidth, g.scaledHeight, g.left, g.top, g.width, g.height, g.width, g.height, deadline.millisecondsLeft, &out, $0, $1)
        }
        guard status == FOCAL_VIPS_OK, let out else { throw Self.error(status, text, name: name, signature: format) }
        return RenderedImage(handle: out)
    }

    /// Crops, resizes and encodes in one pass, as `render(crop:to:)` then `RenderedImage.encode`
    /// would (see `encode(crop:to:settings:)`).
    /// - Throws: as `encode(crop:to:settings:)`; `ImagingError` (`request.invalid`) for a quality
    ///   outside 1...100.
    public func encode(crop: PixelRect, to output: PixelSize, format: ImageFormat, quality: Int = 85, flip: Flip = []) throws -> Data {
        let settings: EncodeSettings
        do {
            settings = try EncodeSettings(format: format, quality: quality, flip: flip)
        } catch {
            throw error.naming(name)
        }
        return try encode(crop: crop, to: output, settings: settings)
    }

    /// Crops, resizes and encodes in one pass, as `render(crop:to:)` then `RenderedImage.encode`
    /// would, but without holding the whole output in memory (only WebP's and AVIF's encoders
    /// need it) and within the image's deadline, encoding included.
    /// - Parameters:
    ///   - crop: The area, in oriented pixels.
    ///   - output: The output size.
    ///   - settings: The format (its row's limits hold), quality and mirroring. A mirrored output
    ///     is rendered into memory first, then mirrored and encoded.
    /// - Throws: `LimitExceeded` when the output is over the limits or the deadline passes;
    ///   `ImagingError` (`input.corrupt`; `output.encode_failed` for an output larger than the
    ///   format holds) naming this image.
    public func encode(crop: PixelRect, to output: PixelSize, settings: EncodeSettings) throws -> Data {
        // Decoded as it is encoded (libvips streams the one into the other): timed as one.
        try StepClock.time("encode") { try encodeNow(crop: crop, to: output, settings: settings) }
    }

    private func encodeNow(crop: PixelRect, to output: PixelSize, settings: EncodeSettings) throws -> Data {
        let format = settings.format
        guard format.holds(output) else {
            throw ImagingError(.outputEncodeFailed, "an output of \(output) is larger than \(format.rawValue.uppercased()) can hold", source: name)
        }
        if !settings.flip.isEmpty {
            do {
                return try render(crop: crop, to: output).encode(settings)
            } catch let error as ImagingError {
                throw error.naming(name)
            } catch let error as LimitExceeded {
                throw error.source == nil ? error.naming(name) : error
            }
        }
        let geometry = try renderGeometry(crop: crop, to: output)
        lock.lock()
        defer { lock.unlock() }
        var memory: UnsafeMutableRawPointer? = nil
        var length = 0
        let (status, text) = withErrorText {
            let (err, errlen) = ($0, $1)
            return settings.withSaver(for: output) {
                focal_vips_render_encode(
                    handle, geometry.scaledWidth, geometry.scaledHeight, geometry.left, geometry.top, geometry.width, geometry.height,
                    $0, deadline.millisecondsLeft, &memory, &length, err, errlen)
            }
        }
        guard status == FOCAL_VIPS_OK, let memory else {
            if status == FOCAL_VIPS_ERR_ENCODE {
                throw ImagingError(.outputEncodeFailed, "the output could not be encoded as \(format.rawValue.uppercased())", source: name, cause: text)
            }
            throw Self.error(status, text, name: name, signature: self.format)
        }
        defer { focal_vips_free(memory) }
        // libvips 8.14's webpsave keeps the source's EXIF on this path too: stripped here, as
        // every other encode is (a camera photo's 16-pixel preview was 10 KB of it).
        let data = Data(bytes: memory, count: length)
        return format == .webp ? WebPMetadata.stripped(data) : data
    }

    /// Where `crop` lies once the whole image is scaled so that it becomes exactly `output`, in
    /// 32-bit integers for the shim; checked against the limits and the deadline.
    private func renderGeometry(crop: PixelRect, to output: PixelSize) throws
        -> (scaledWidth: Int32, scaledHeight: Int32, left: Int32, top: Int32, width: Int32, height: Int32)
    {
        guard crop.isInside(size), output.width > 0, output.height > 0 else {
            throw ImagingError(.internalFailure, "crop \(crop) to \(output) is outside the image of \(size)", source: name)
        }
        do {
            try limits.check(output: output, from: crop.size)
        } catch {
            throw error.naming(name)
        }
        try deadline.check(source: name)
        // Scale the whole image so that the crop becomes exactly the output, then cut it out.
        let sx = Double(output.width) / Double(crop.width), sy = Double(output.height) / Double(crop.height)
        let scaledWidth = max(output.width, Int((Double(size.width) * sx).rounded()))
        let scaledHeight = max(output.height, Int((Double(size.height) * sy).rounded()))
        let left = min(Int((Double(crop.x) * sx).rounded()), scaledWidth - output.width)
        let top = min(Int((Double(crop.y) * sy).rounded()), scaledHeight - output.height)
        guard let sw = Int32(exactly: scaledWidth), let sh = Int32(exactly: scaledHeight), let l = Int32(exactly: left),
            let t = Int32(exactly: top), let ow = Int32(exactly: output.width), let oh = Int32(exactly: output.height)
        else {
            throw ImagingError(.internalFailure, "render geometry for \(crop) to \(output) is out of range", source: name)
        }
        return (sw, sh, l, t, ow, oh)
    }
}
