internal import CFocalVips
public import FocalCore
internal import FocalRuntime
public import Foundation

/// A decoded image held in memory, 8-bit sRGB: a proxy, a crop, an overlay.
public final class RenderedImage: @unchecked Sendable {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { focal_vips_image_free(handle) }

    /// Wraps a copy of RGB pixels.
    /// - Throws: `ImagingError` when libvips cannot take them.
    public convenience init(pixels: PixelBuffer) throws(ImagingError) {
        try Vips.start()
        guard let w = Int32(exactly: pixels.width), let h = Int32(exactly: pixels.height) else {
            throw ImagingError(.internalFailure, "pixel buffer of \(pixels.size) is out of range")
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { err, len in
            pixels.bytes.withUnsafeBufferPointer { focal_vips_from_rgb($0.baseAddress, $0.count, w, h, &out, err, len) }
        }
        guard status == FOCAL_VIPS_OK, let out else {
            throw ImagingError(.internalFailure, "cannot wrap pixels", cause: text)
        }
        self.init(handle: out)
    }

    /// The size in pixels.
    public var size: PixelSize {
        var width: Int32 = 0, height: Int32 = 0
        focal_vips_image_size(handle, &width, &height)
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// Whether it has an alpha band (transparency).
    public var hasAlpha: Bool { focal_vips_image_has_alpha(handle) != 0 }

    /// The image resized to exactly `size`.
    /// - Throws: `ImagingError` when libvips cannot resize it.
    public func resized(to size: PixelSize) throws(ImagingError) -> RenderedImage {
        guard let w = Int32(exactly: size.width), let h = Int32(exactly: size.height) else {
            throw ImagingError(.internalFailure, "resize to \(size) is out of range")
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_resize(handle, w, h, &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot resize", cause: text) }
        return RenderedImage(handle: out)
    }

    /// The area `crop` of this image resized to exactly `output` (Lanczos 3).
    /// - Throws: `ImagingError` when the area is outside the image or libvips fails.
    public func cropped(_ crop: PixelRect, to output: PixelSize) throws(ImagingError) -> RenderedImage {
        guard crop.isInside(size), let x = Int32(exactly: crop.x), let y = Int32(exactly: crop.y),
            let w = Int32(exactly: crop.width), let h = Int32(exactly: crop.height),
            let ow = Int32(exactly: output.width), let oh = Int32(exactly: output.height), ow > 0, oh > 0
        else {
            throw ImagingError(.internalFailure, "crop \(crop) to \(output) is outside the image of \(size)")
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_crop_resize(handle, x, y, w, h, ow, oh, &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot crop", cause: text) }
        return RenderedImage(handle: out)
    }

    /// The image mirrored as `flip` says (itself when it says nothing).
    /// - Throws: `ImagingError` when libvips fails.
    public func flipped(_ flip: Flip) throws(ImagingError) -> RenderedImage {
        guard !flip.isEmpty else { return self }
        var out: OpaquePointer?
        let (status, text) = withErrorText {
            focal_vips_flip(handle, flip.contains(.horizontal) ? 1 : 0, flip.contains(.vertical) ? 1 : 0, &out, $0, $1)
        }
        guard status == FOCAL_VIPS_OK, let out else { throw ImagingError(.internalFailure, "cannot flip", cause: text) }
        return RenderedImage(handle: out)
    }

    /// The pixels as 8-bit RGB, alpha flattened on white.
    /// - Throws: `ImagingError` when libvips fails.
    public func pixels() throws(ImagingError) -> PixelBuffer {
        var memory: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let (status, text) = withErrorText { focal_vips_rgb_pixels(handle, &memory, &length, $0, $1) }
        guard status == FOCAL_VIPS_OK, let memory else { throw ImagingError(.internalFailure, "cannot read pixels", cause: text) }
        defer { focal_vips_free(memory) }
        let bytes = Array(UnsafeBufferPointer(start: memory, count: length))
        let size = self.size
        guard let buffer = PixelBuffer(width: size.width, height: size.height, bytes: bytes) else {
            throw ImagingError(.internalFailure, "decoded \(length) bytes for \(size) pixels")
        }
        return buffer
    }

    /// Encodes the image in sRGB with metadata stripped.
    /// - Parameters:
    ///   - format: JPEG, PNG, WebP or AVIF (at most `ImageFormat.avifMaxPixels`).
    ///   - quality: 1...100 on JPEG's scale (`FormatDescriptor.encoderQuality`); default 85.
    /// - Throws: `ImagingError` (`output.encode_failed`, or `request.invalid` for a quality
    ///   outside 1...100).
    public func encode(_ format: ImageFormat, quality: Int = 85) throws(ImagingError) -> Data {
        try encode(EncodeSettings(format: format, quality: quality))
    }

    /// Encodes the image with `settings` (its mirroring applied first).
    /// - Throws: `ImagingError` (`output.encode_failed`).
    public func encode(_ settings: EncodeSettings) throws(ImagingError) -> Data {
        try StepClock.time("encode") { () throws(ImagingError) -> Data in try encodeNow(settings) }
    }

    private func encodeNow(_ settings: EncodeSettings) throws(ImagingError) -> Data {
        let format = settings.format
        guard format.holds(size) else {
            throw ImagingError(.outputEncodeFailed, "an output of \(size) is larger than \(format.rawValue.uppercased()) can hold")
        }
        let image = settings.flip.isEmpty ? self : try flipped(settings.flip)
        var memory: UnsafeMutableRawPointer? = nil
        var length = 0
        let (status, text) = withErrorText {
            let (err, errlen) = ($0, $1)
            return settings.withSaver(for: size) { focal_vips_encode(image.handle, $0, &memory, &length, err, errlen) }
        }
        guard status == FOCAL_VIPS_OK, let memory else {
            throw ImagingError(.outputEncodeFailed, "the output could not be encoded as \(format.rawValue)", cause: text)
        }
        defer { focal_vips_free(memory) }
        let data = Data(bytes: memory, count: length)
        return format == .webp ? WebPMetadata.stripped(data) : data
    }
}
