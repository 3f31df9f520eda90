/// The result from the memory or disk cache, once its key can be made (the identity known and
/// the saved crop settled): the one lookup of a crop, wherever in its steps that happens.
struct LookUpResult: CropStep {
    let name = "look-up-result"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, let identity = job.identity, let key = job.resultKey(pipeline), job.lookedUp != key.text else { return }
        job.lookedUp = key.text
        guard let hit = await pipeline.cached(key) else { return }
        job.result = hit.identified(identity).degraded(job.options.savedCropsUnknown)
        job.finished = true
    }
}
