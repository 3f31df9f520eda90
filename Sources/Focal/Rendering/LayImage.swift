import FocalCore
import FocalImaging

/// imagor's `image(…)`: another image composited over the frame, decoded once at its own size (at
/// most the output's), in its blend mode. Under a redaction, what its image holds is hidden too
/// (`FindRedactions`).
struct LayImage: FrameChange {
    let name = "image"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let overlay = job.options.imageOverlay, let laid = try await pipeline.overlayImage("image", of: job, for: plan) else { return nil }
        return ReadyFrameChange { frame, _ in try overlay.apply(laid, to: frame) }
    }
}
