public import FocalCore

extension RenderedImage {
    /// The image with `outlines` drawn on it (`PixelBuffer.outlining`); itself when there are
    /// none. Alpha is flattened on white.
    /// - Throws: `ImagingError` when libvips fails.
    public func outlining(_ outlines: [Outline]) throws(ImagingError) -> RenderedImage {
        guard !outlines.isEmpty else { return self }
        return try RenderedImage(pixels: try pixels().outlining(outlines))
    }
}
