import CFocalVips
import FocalCore
import Foundation

/// An image whose header has been read, ready to be decoded at any scale.
///
/// Opening reads only the header: the size limits are checked before any pixel is decoded.
/// Sizes are those of the oriented image (EXIF orientation applied). Decoding uses
/// shrink-on-load, so a small proxy or output never decodes the full resolution when the format
/// allows (JPEG, WebP, HEIF).
public final class SourceImage: @unchecked Sendable {
    private let handle: OpaquePointer
    // libvips sources rewind between decodes, so decodes of one source take turns.
    private let lock = NSLock()

    /// The oriented size in pixels.
    public let size: PixelSize
    /// The EXIF orientation that was applied (1...8).
    public let orientation: Int
    /// The input format as libvips names it: `jpeg`, `png`, `webp`, `tiff`, `gif`, `heif`, ...
    public let format: String
    /// A label for messages: the path, or "bytes".
    public let name: String

    private init(handle: OpaquePointer, info: focal_vips_info, name: String) {
        self.handle = handle
        self.name = name
        size = PixelSize(width: Int(info.width), height: Int(info.height))
        orientation = Int(info.orientation)
        let loader = withUnsafeBytes(of: info.loader) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        format = Self.formatName(loader)
    }

    deinit { focal_vips_source_free(handle) }

    /// The format a libvips loader reads: "VipsForeignLoadJpegSource" or "jpegload_source" -> "jpeg".
    static func formatName(_ loader: String) -> String {
        var name = loader
        if name.hasPrefix("VipsForeignLoad") { name.removeFirst("VipsForeignLoad".count) }
        for suffix in ["Source", "_source", "load"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        // libvips's GIF loader is libnsgif's: VipsForeignLoadNsgifSource.
        return name.lowercased() == "nsgif" ? "gif" : name.lowercased()
    }

    /// Opens a file and reads its header.
    /// - Parameters:
    ///   - path: The file.
    ///   - limits: Byte and pixel limits; default `.default`.
    /// - Throws: `ImagingError` when the file is missing, empty, too large, or not an image.
    public static func open(path: String, limits: ImageLimits = .default) throws(ImagingError) -> SourceImage {
        try Vips.start()
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw ImagingError(.io, "cannot read the file: it does not exist or is not readable", source: path)
        }
        if attributes[.type] as? FileAttributeType == .typeDirectory {
            throw ImagingError(.io, "is a directory, not an image file", source: path)
        }
        let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
        try check(byteCount: bytes, limits: limits, name: path)
        let (opened, text) = withErrorText { err, len in
            var info = focal_vips_info()
            return focal_vips_open_file(path, &info, err, len).map { ($0, info) }
        }
        guard let (handle, info) = opened else { throw classify(text, name: path) }
        return try SourceImage(handle: handle, info: info, name: path).checked(limits)
    }

    /// Reads the header of image bytes; libvips works on its own copy.
    /// - Parameters:
    ///   - data: The encoded image.
    ///   - name: A label for error messages (a URL, a file name); default "bytes".
    ///   - limits: Byte and pixel limits; default `.default`.
    /// - Throws: `ImagingError` when the bytes are empty, too many, or not an image.
    public static func open(data: Data, name: String = "bytes", limits: ImageLimits = .default) throws(ImagingError) -> SourceImage {
        try Vips.start()
        try check(byteCount: data.count, limits: limits, name: name)
        let (opened, text) = withErrorText { err, len in
            data.withUnsafeBytes { raw in
                var info = focal_vips_info()
                return focal_vips_open_buffer(raw.baseAddress, raw.count, &info, err, len).map { ($0, info) }
            }
        }
        guard let (handle, info) = opened else { throw classify(text, name: name) }
        return try SourceImage(handle: handle, info: info, name: name).checked(limits)
    }

    private static func check(byteCount: Int, limits: ImageLimits, name: String) throws(ImagingError) {
        if byteCount == 0 { throw ImagingError(.empty, "is empty (0 bytes); expected an image", source: name) }
        if byteCount > limits.maxInputBytes {
            throw ImagingError(
                .tooManyBytes,
                "is \(byteCount) bytes, over the limit of \(limits.maxInputBytes); raise the byte limit to accept it",
                source: name)
        }
    }

    private func checked(_ limits: ImageLimits) throws(ImagingError) -> SourceImage {
        if size.width <= 0 || size.height <= 0 {
            throw ImagingError(.decodeFailed, "has no pixels (\(size))", source: name)
        }
        if size.width > limits.maxPixels / size.height {
            throw ImagingError(
                .tooManyPixels,
                "claims \(size) pixels, over the limit of \(limits.maxPixels); refused before decoding",
                source: name)
        }
        return self
    }

    private static func classify(_ text: String, name: String) -> ImagingError {
        if text.contains("not a known image format") {
            return ImagingError(.notAnImage, "is not an image in a format libvips reads (JPEG, PNG, WebP, TIFF, GIF, HEIF, ...)", source: name)
        }
        return ImagingError(.decodeFailed, "cannot be read: \(text)", source: name)
    }

    /// Decodes a copy whose long side is `longSide` pixels, as RGB.
    /// - Parameters:
    ///   - longSide: The long side of the copy.
    ///   - enlarge: Whether a smaller image is scaled up to it; default `false`.
    /// - Throws: `ImagingError` with `.decodeFailed` for corrupt or truncated data.
    public func proxy(longSide: Int, enlarge: Bool = false) throws(ImagingError) -> PixelBuffer {
        let scaled = size.fitting(longSide: longSide, enlarge: enlarge)
        return try pixels(width: scaled.width, height: scaled.height)
    }

    /// Decodes the whole oriented image scaled to exactly `width` × `height`, as RGB.
    /// - Throws: `ImagingError` with `.decodeFailed`, naming this image, for corrupt or truncated data.
    public func pixels(width: Int, height: Int) throws(ImagingError) -> PixelBuffer {
        do {
            return try decode(width: width, height: height).pixels()
        } catch {
            throw error.source == nil ? error.naming(name) : error
        }
    }

    /// Decodes the whole oriented image scaled to exactly `width` × `height`.
    /// - Throws: `ImagingError` with `.decodeFailed` for corrupt or truncated data.
    public func decode(width: Int, height: Int) throws(ImagingError) -> RenderedImage {
        lock.lock()
        defer { lock.unlock() }
        let (image, text) = withErrorText { focal_vips_thumbnail(handle, Int32(width), Int32(height), $0, $1) }
        guard let image else { throw ImagingError(.decodeFailed, "cannot be decoded: \(text)", source: name) }
        return RenderedImage(handle: image)
    }

    /// Crops `crop` (oriented pixels) and resizes it to exactly `output`, decoding at the smallest
    /// scale that still gives every output pixel (shrink-on-load), with one Lanczos resample.
    /// - Throws: `ImagingError` with `.decodeFailed` for corrupt or truncated data.
    public func render(crop: PixelRect, to output: PixelSize) throws(ImagingError) -> RenderedImage {
        guard crop.isInside(size), output.width > 0, output.height > 0 else {
            throw ImagingError(.decodeFailed, "crop \(crop) to \(output) is outside the image of \(size)", source: name)
        }
        // Scale the whole image so that the crop becomes exactly the output, then cut it out.
        let sx = Double(output.width) / Double(crop.width), sy = Double(output.height) / Double(crop.height)
        let scaledWidth = max(output.width, Int((Double(size.width) * sx).rounded()))
        let scaledHeight = max(output.height, Int((Double(size.height) * sy).rounded()))
        let left = min(Int((Double(crop.x) * sx).rounded()), scaledWidth - output.width)
        let top = min(Int((Double(crop.y) * sy).rounded()), scaledHeight - output.height)
        lock.lock()
        defer { lock.unlock() }
        let (image, text) = withErrorText {
            focal_vips_render(
                handle, Int32(scaledWidth), Int32(scaledHeight), Int32(left), Int32(top),
                Int32(output.width), Int32(output.height), Int32(output.width), Int32(output.height), $0, $1)
        }
        guard let image else { throw ImagingError(.decodeFailed, "cannot be decoded: \(text)", source: name) }
        return RenderedImage(handle: image)
    }

    /// Crops, resizes and encodes in one go; see `render(crop:to:)` and `RenderedImage.encode`.
    /// - Throws: `ImagingError` naming this image; a corrupt input surfaces here, because pixels
    ///   are computed while encoding.
    public func encode(crop: PixelRect, to output: PixelSize, format: ImageFormat, quality: Int = 85) throws(ImagingError) -> Data {
        do {
            return try render(crop: crop, to: output).encode(format, quality: quality)
        } catch {
            throw error.source == nil ? error.naming(name) : error
        }
    }
}
