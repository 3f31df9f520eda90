/// The rendered result kept in the memory and disk caches under its key; never one that may miss
/// a saved crop (the store could not say), nor a fallback.
struct Store: CropStep {
    let name = "store"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        try Task.checkCancellation()
        guard let result = job.result, !job.finished, job.fallback == nil, !job.options.savedCropsUnknown, let key = job.resultKey(pipeline) else { return }
        await pipeline.store(result, for: key)
    }
}
