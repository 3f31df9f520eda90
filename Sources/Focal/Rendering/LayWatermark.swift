import FocalCore
import FocalImaging

/// `watermark(…)`: another image laid over the frame, decoded once at most the output's size
/// (thumbor never enlarges it). Under a redaction, what its own image holds is hidden too
/// (`FindRedactions`).
struct LayWatermark: FrameChange {
    let name = "watermark"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let watermark = job.options.watermark, let source = job.overlayImages["watermark"] else { return nil }
        let side = max(plan.outputSize.width, plan.outputSize.height)
        let size = source.size.fitting(longSide: min(side, max(source.size.width, source.size.height)))
        var mark = try await pipeline.pool.run { try source.decode(width: size.width, height: size.height) }
        if let redaction = job.options.redaction, let found = job.redactedOverlays["watermark"] {
            let regions = FocalPipeline.outputRegions(found, crop: PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height), output: size)
            let decoded = mark
            mark = try await pipeline.pool.run { try decoded.redacting(regions, with: redaction) }
        }
        let laid = mark
        return ReadyFrameChange { image, _ in try watermark.apply(laid, to: image) }
    }
}
