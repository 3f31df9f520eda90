/// The image's bytes and identity: a URL fetched, a file without an identity read (once, for its
/// identity and its pixels), then hashed when it has no identity yet. Reservations go on the
/// job's admission pass as bytes arrive.
struct Fetch: CropStep {
    let name = "fetch"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard !job.fetched else { return }
        let (location, identity) = try await pipeline.fetched(job.input, identity: job.identity, identify: job.identify)
        job.location = location
        job.identity = identity
        job.fetched = true
    }
}
