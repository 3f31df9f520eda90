import FocalCore
import FocalImaging

/// The images laid over the output, the watermark's (`watermark(…)`) and the frame's nine-patch
/// (`frame(…)`), each read as the door resolved it, under the same limits as any input; each
/// content's SHA-256 joins the request's options, so that the result key names their bytes, not
/// only their names. Runs before the result is looked up.
struct LoadOverlays: CropStep {
    let name = "overlays"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult else { return }
        if let mark = job.options.watermark, job.watermarkImage == nil {
            let (image, contentID) = try await Self.read(job.options.watermarkInput, named: mark.source, for: "watermark", in: pipeline)
            job.options.watermark?.contentID = contentID
            job.watermarkImage = image
        }
        if let frame = job.options.frame, job.frameImage == nil {
            let (image, contentID) = try await Self.read(job.options.frameInput, named: frame.source, for: "frame", in: pipeline)
            job.options.frame?.contentID = contentID
            job.frameImage = image
        }
    }

    /// An overlay's image opened, with its content's SHA-256.
    static func read(_ input: ImageInput?, named name: String, for filter: String, in pipeline: FocalPipeline) async throws -> (SourceImage, String?) {
        guard let input else { throw PlanningError.invalidOption("\(filter) '\(name)' names no image this door can read") }
        let (location, identity) = try await pipeline.fetched(input, identity: nil)
        return (try await pipeline.open(location), identity?.contentID)
    }
}
