import FocalCore
import FocalImaging

/// imagor's `image(…)`: other images composited over the frame in the URL's order, each decoded
/// once at its own size (at most the output's), in its blend mode. Under a redaction, what their
/// images hold is hidden too (`FindRedactions`).
struct LayImage: FrameChange {
    let name = "image"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        var overlays: [(ImageOverlay, RenderedImage)] = []
        for (index, overlay) in job.options.imageOverlays.enumerated() {
            guard let laid = try await pipeline.overlayImage(OverlaySlot.name("image", index), of: job, for: plan) else { continue }
            overlays.append((overlay, laid))
        }
        guard !overlays.isEmpty else { return nil }
        let laid = overlays
        return ReadyFrameChange { frame, _ in try laid.reduce(frame) { frame, overlay in try overlay.0.apply(overlay.1, to: frame) } }
    }
}
