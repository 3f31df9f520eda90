import FocalCore
import FocalImaging

/// imagor's `image(…)`: another image composited over the frame, decoded once at its own size (at
/// most the output's), in its blend mode. Under a redaction, what its image holds is hidden too
/// (`FindRedactions`).
struct LayImage: FrameChange {
    let name = "image"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let overlay = job.options.imageOverlay, let source = job.overlayImages["image"] else { return nil }
        let side = max(plan.outputSize.width, plan.outputSize.height)
        let size = source.size.fitting(longSide: min(side, max(source.size.width, source.size.height)))
        var image = try await pipeline.pool.run { try source.decode(width: size.width, height: size.height) }
        if let redaction = job.options.redaction, let found = job.redactedOverlays["image"] {
            let regions = FocalPipeline.outputRegions(found, crop: PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height), output: size)
            let decoded = image
            image = try await pipeline.pool.run { try decoded.redacting(regions, with: redaction) }
        }
        let laid = image
        return ReadyFrameChange { frame, _ in try overlay.apply(laid, to: frame) }
    }
}
