import FocalImaging

/// `-W`, `-H` (thumbor's mirroring), before the effects as thumbor mirrors before its filters.
/// Alone it is left to the encoder, which mirrors as it writes.
struct MirrorFrame: FrameChange {
    let name = "mirror"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        let flip = job.options.flip
        guard !flip.isEmpty else { return nil }
        return ReadyFrameChange(onlyBesideOthers: true) { image, _ in try image.flipped(flip) }
    }
}
