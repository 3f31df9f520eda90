import FocalCore
import FocalImaging

/// imagor's `image(…)`: other images composited over the frame in the URL's order, each decoded
/// once at its own size (at most the output's), in its blend mode. Under a redaction, what their
/// images hold is hidden too (`FindRedactions`).
struct LayImage: FrameChange {
    let name = "image"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        let overlays = job.options.imageOverlays
        let laid = try await pipeline.overlayImages("image", count: overlays.count, of: job, for: plan).map { (overlays[$0.index], $0.image) }
        guard !laid.isEmpty else { return nil }
        return ReadyFrameChange { frame, _ in try laid.reduce(frame) { frame, overlay in try overlay.0.apply(overlay.1, to: frame) } }
    }
}
