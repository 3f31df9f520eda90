/// The image's header read and checked against the limits, its decode's memory reserved: the page
/// `page(n)` picks, turned as `orient` says.
struct Open: CropStep {
    let name = "open"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.image == nil, job.fetched else { return }
        job.image = try await pipeline.open(
            job.location, page: job.options.page.map { $0 - 1 }, turn: job.options.orient ?? 0, identifiedAs: job.identity?.contentID)
    }
}
