import FocalCore
import FocalImaging

/// The watermark's image (`watermark(…)`), read as the door resolved it, under the same limits as
/// any input; its content's SHA-256 joins the request's options, so that the result key names
/// the watermark's bytes, not only its name. Runs before the result is looked up.
struct LoadWatermark: CropStep {
    let name = "watermark"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.options.watermark != nil, job.watermarkImage == nil else { return }
        guard let input = job.options.watermarkInput else {
            throw PlanningError.invalidOption("watermark '\(job.options.watermark?.source ?? "")' names no image this door can read")
        }
        let (location, identity) = try await pipeline.fetched(input, identity: nil)
        let image = try await pipeline.open(location)
        job.options.watermark?.contentID = identity?.contentID
        job.watermarkImage = image
    }
}
