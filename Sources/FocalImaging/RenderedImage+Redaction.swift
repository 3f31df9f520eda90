public import FocalCore

/// A change to rendered pixels before they are encoded (a redaction).
public typealias PixelTransform = @Sendable (RenderedImage) throws -> RenderedImage

extension RenderedImage {
    /// The image with `regions` (in its pixels) hidden as `redaction` says (`PixelBuffer.redacting`);
    /// itself when there is none. Transparency is kept, and hidden too: inside each region the
    /// alpha band is blurred or pixelated like the colours (a face drawn in alpha alone, black on
    /// clear, is hidden as well), and made opaque under a fill.
    /// - Throws: `ImagingError` when libvips fails.
    public func redacting(_ regions: [PixelRect], with redaction: Redaction) throws(ImagingError) -> RenderedImage {
        guard !regions.isEmpty else { return self }
        guard hasAlpha else { return try RenderedImage(pixels: try pixels().redacting(regions, with: redaction)) }
        let size = self.size
        var rgba = try rgbaPixels()
        let count = size.width * size.height
        var rgb = [UInt8](repeating: 0, count: count * 3), alpha = [UInt8](repeating: 0, count: count * 3)
        for i in 0..<count {
            rgb[3 * i] = rgba[4 * i]
            rgb[3 * i + 1] = rgba[4 * i + 1]
            rgb[3 * i + 2] = rgba[4 * i + 2]
            alpha[3 * i] = rgba[4 * i + 3]
        }
        guard let colours = PixelBuffer(width: size.width, height: size.height, bytes: rgb),
            let opacity = PixelBuffer(width: size.width, height: size.height, bytes: alpha)
        else { throw ImagingError(.internalFailure, "RGBA pixels of \(size) do not match their size") }
        var hidingAlpha = redaction
        if case .fill = redaction.style { hidingAlpha.style = .fill(red: 255, green: 255, blue: 255) }
        let (newColours, newOpacity) = (colours.redacting(regions, with: redaction).bytes, opacity.redacting(regions, with: hidingAlpha).bytes)
        for i in 0..<count {
            rgba[4 * i] = newColours[3 * i]
            rgba[4 * i + 1] = newColours[3 * i + 1]
            rgba[4 * i + 2] = newColours[3 * i + 2]
            rgba[4 * i + 3] = newOpacity[3 * i]
        }
        return try RenderedImage(rgba: rgba, size: size)
    }
}
