import FocalImaging

/// thumbor's filters that change pixels (`blur`, `brightness`, `rotate`, …), in the order given.
struct ApplyEffects: FrameChange {
    let name = "effects"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        let effects = job.options.effects
        guard !effects.isEmpty else { return nil }
        return ReadyFrameChange(resize: { effects.outputSize(of: $0) }) { image, _ in try effects.apply(to: image) }
    }
}
