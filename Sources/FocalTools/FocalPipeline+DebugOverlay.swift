public import Focal
public import Foundation

extension FocalPipeline {
    /// Draws the subjects, the padded region and the crop on a copy of the image, as PNG, on the
    /// pipeline's native pool.
    /// - Parameters:
    ///   - analysis: The image and everything detected.
    ///   - plan: The crop to show; nil draws the subjects alone.
    ///   - longSide: The overlay's long side in pixels; default 1024.
    /// - Throws: `ImagingError` when the image turns out corrupt.
    public func debugOverlay(_ analysis: Analysis, plan: CropPlan?, longSide: Int = 1024) async throws -> Data {
        try await runNative { () throws -> Data in
            try DebugOverlay(analysis: analysis, plan: plan).png(longSide: longSide)
        }
    }
}
