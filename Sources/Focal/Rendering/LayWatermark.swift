import FocalCore
import FocalImaging

/// `watermark(…)`: another image laid over the frame, decoded once at most the output's size
/// (thumbor never enlarges it). Under a redaction, what its own image holds is hidden too
/// (`FindRedactions`).
struct LayWatermark: FrameChange {
    let name = "watermark"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let watermark = job.options.watermark, let mark = try await pipeline.overlayImage("watermark", of: job, for: plan) else { return nil }
        return ReadyFrameChange { image, _ in try watermark.apply(mark, to: image) }
    }
}
