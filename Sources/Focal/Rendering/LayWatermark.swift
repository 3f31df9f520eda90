import FocalCore
import FocalImaging

/// `watermark(…)`: other images laid over the frame in the URL's order, each decoded once at most
/// the output's size (thumbor never enlarges it). Under a redaction, what their own images hold
/// is hidden too (`FindRedactions`).
struct LayWatermark: FrameChange {
    let name = "watermark"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        var marks: [(Watermark, RenderedImage)] = []
        for (index, watermark) in job.options.watermarks.enumerated() {
            guard let mark = try await pipeline.overlayImage(OverlaySlot.name("watermark", index), of: job, for: plan) else { continue }
            marks.append((watermark, mark))
        }
        guard !marks.isEmpty else { return nil }
        let laid = marks
        return ReadyFrameChange { image, _ in try laid.reduce(image) { image, mark in try mark.0.apply(mark.1, to: image) } }
    }
}
