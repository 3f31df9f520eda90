import FocalCore
import FocalImaging

/// `watermark(…)`: other images laid over the frame in the URL's order, each decoded once at most
/// the output's size (thumbor never enlarges it). Under a redaction, what their own images hold
/// is hidden too (`FindRedactions`).
struct LayWatermark: FrameChange {
    let name = "watermark"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        let watermarks = job.options.watermarks
        let marks = try await pipeline.overlayImages("watermark", count: watermarks.count, of: job, for: plan).map { (watermarks[$0.index], $0.image) }
        guard !marks.isEmpty else { return nil }
        return ReadyFrameChange { image, _ in try marks.reduce(image) { image, mark in try mark.0.apply(mark.1, to: image) } }
    }
}
