import FocalImaging
import Foundation

/// The plan rendered and encoded: a detecting crop from the working copy's decode when it holds
/// enough pixels, otherwise (and always for a plain crop) from the file at the output's scale.
/// Which of the two depends only on the image, the options and the plan, never on whether the
/// detectors ran in this process: one plan renders the same bytes on every replica and after a
/// restart, so one ETag always stands for one set of bytes.
struct Render: CropStep {
    let name = "render"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, let plan = job.plan, let image = job.image else { return }
        try Task.checkCancellation()
        let options = job.options
        let format = try options.outputFormat(for: image.format, size: plan.outputSize)
        let settings = try EncodeSettings(format: format, options: options.encoding)
        // A redaction hides its regions in the rendered pixels, before mirroring and encoding; the
        // crop renders from the same source as without it, so every other pixel is the same.
        let hide: PixelTransform? = options.redaction.map { redaction in
            let regions = FocalPipeline.outputRegions(job.redacted ?? [], plan: plan)
            return { image in try image.redacting(regions, with: redaction) }
        }
        let data: Data
        if options.crop.needsDetection, let copy = job.copy {
            data = try await pipeline.render(plan, of: copy, settings: settings, transform: hide)
        } else if let hide {
            data = try await pipeline.render(image, plan: plan, settings: settings, transform: hide)
        } else {
            data = try await pipeline.render(image, plan: plan, settings: settings)
        }
        var result = CropResult(data: data, format: format, plan: plan, detected: job.cropSubjects, key: job.resultKey(pipeline)?.fileName)
        result.overrideRevision = options.savedCropRevision
        result.contentID = job.identity?.contentID
        result.savedCropsUnknown = options.savedCropsUnknown
        job.result = result
    }
}
