public import FocalCore

/// A change to rendered pixels before they are encoded (a redaction).
public typealias PixelTransform = @Sendable (RenderedImage) throws -> RenderedImage

extension RenderedImage {
    /// The image with `regions` (in its pixels) hidden as `redaction` says (`PixelBuffer.redacting`);
    /// itself when there is none. Transparency is kept: the colours are hidden under the alpha
    /// they had.
    /// - Throws: `ImagingError` when libvips fails.
    public func redacting(_ regions: [PixelRect], with redaction: Redaction) throws(ImagingError) -> RenderedImage {
        guard !regions.isEmpty else { return self }
        return try mappingPixels { pixels in pixels.redacting(regions, with: redaction) }
    }
}
