import FocalImaging

/// `fill(…)`: the frame placed in its box's size, the rest filled.
struct FillBox: FrameChange {
    let name = "fill"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let fill = job.options.fill else { return nil }
        return ReadyFrameChange(resize: { fill.canvas(for: $0) }) { image, _ in try fill.apply(to: image) }
    }
}
