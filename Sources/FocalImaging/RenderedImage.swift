import CFocalVips
import FocalCore
import Foundation

/// A decoded (lazily computed) image in sRGB: a proxy, a crop, an overlay.
public final class RenderedImage: @unchecked Sendable {
    private let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { focal_vips_image_free(handle) }

    /// Wraps a copy of RGB pixels.
    /// - Throws: `ImagingError` when libvips cannot take them.
    public convenience init(pixels: PixelBuffer) throws(ImagingError) {
        try Vips.start()
        let (image, text) = withErrorText { err, len in
            pixels.bytes.withUnsafeBufferPointer {
                focal_vips_from_rgb($0.baseAddress, Int32(pixels.width), Int32(pixels.height), err, len)
            }
        }
        guard let image else { throw ImagingError(.decodeFailed, "cannot wrap pixels: \(text)") }
        self.init(handle: image)
    }

    /// The size in pixels.
    public var size: PixelSize {
        var width: Int32 = 0, height: Int32 = 0
        focal_vips_image_size(handle, &width, &height)
        return PixelSize(width: Int(width), height: Int(height))
    }

    /// The image resized to exactly `size`.
    /// - Throws: `ImagingError` when libvips cannot resize it.
    public func resized(to size: PixelSize) throws(ImagingError) -> RenderedImage {
        let (image, text) = withErrorText { focal_vips_resize(handle, Int32(size.width), Int32(size.height), $0, $1) }
        guard let image else { throw ImagingError(.decodeFailed, "cannot resize: \(text)") }
        return RenderedImage(handle: image)
    }

    /// Computes the pixels as 8-bit RGB, alpha flattened on white.
    /// - Throws: `ImagingError` with `.decodeFailed` for corrupt or truncated input.
    public func pixels() throws(ImagingError) -> PixelBuffer {
        var memory: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let (status, text) = withErrorText { focal_vips_rgb_pixels(handle, &memory, &length, $0, $1) }
        guard status == 0, let memory else { throw ImagingError(.decodeFailed, "cannot be decoded: \(text)") }
        defer { focal_vips_free(memory) }
        let bytes = Array(UnsafeBufferPointer(start: memory, count: length))
        let size = self.size
        guard let buffer = PixelBuffer(width: size.width, height: size.height, bytes: bytes) else {
            throw ImagingError(.decodeFailed, "decoded \(length) bytes for \(size) pixels")
        }
        return buffer
    }

    /// Encodes the image in sRGB with metadata stripped.
    /// - Parameters:
    ///   - format: JPEG, PNG or WebP.
    ///   - quality: 1...100 for JPEG and WebP; default 85.
    /// - Throws: `ImagingError` with `.decodeFailed` when the input turns out corrupt while it is
    ///   computed, or `.encodeFailed`.
    public func encode(_ format: ImageFormat, quality: Int = 85) throws(ImagingError) -> Data {
        var memory: UnsafeMutableRawPointer? = nil
        var length = 0
        let code: focal_vips_format =
            switch format {
            case .jpeg: FOCAL_VIPS_JPEG
            case .png: FOCAL_VIPS_PNG
            case .webp: FOCAL_VIPS_WEBP
            }
        let (status, text) = withErrorText { focal_vips_encode(handle, code, Int32(quality), &memory, &length, $0, $1) }
        guard status == 0, let memory else {
            // Pixels are computed while encoding, so a truncated input surfaces here.
            let lowered = text.lowercased()
            let decodeTrouble = ["truncated", "premature", "corrupt", "read error", "load"].contains { lowered.contains($0) }
            throw ImagingError(decodeTrouble ? .decodeFailed : .encodeFailed, "cannot be encoded as \(format.rawValue): \(text)")
        }
        defer { focal_vips_free(memory) }
        return Data(bytes: memory, count: length)
    }
}
