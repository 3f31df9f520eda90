import FocalCore
import FocalImaging
import Foundation

/// The plan rendered and encoded: a detecting crop from the working copy's decode when it holds
/// enough pixels, otherwise (and always for a plain crop) from the file at the output's scale.
/// Which of the two depends only on the image, the options and the plan, never on whether the
/// detectors ran in this process: one plan renders the same bytes on every replica and after a
/// restart, so one ETag always stands for one set of bytes. An animated plan renders every frame
/// from the file.
struct Render: CropStep {
    let name = "render"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, let plan = job.plan, let image = job.image else { return }
        try Task.checkCancellation()
        let options = job.options
        if let animation = job.animation, let frames = plan.frames, let format = options.animatedFormat(for: image.format) {
            let settings = try EncodeSettings(format: format, options: options.encoding)
            let hide: (@Sendable (Int, RenderedImage) throws -> RenderedImage)? = options.redaction.map { redaction in
                let boxes = job.redactedFrames ?? []
                return { index, image in
                    let regions = FocalPipeline.outputRegions(index < boxes.count ? boxes[index] : [], crop: frames[index].crop, output: plan.outputSize)
                    return try image.redacting(regions, with: redaction)
                }
            }
            let data = try await pipeline.renderAnimation(image, animation: animation, plan: plan, frames: frames, settings: settings, transform: hide)
            job.result = result(data, format: format, plan: plan, job: job, pipeline: pipeline)
            return
        }
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
        job.result = result(data, format: format, plan: plan, job: job, pipeline: pipeline)
    }

    private func result(_ data: Data, format: ImageFormat, plan: CropPlan, job: CropJob, pipeline: FocalPipeline) -> CropResult {
        var result = CropResult(data: data, format: format, plan: plan, detected: job.cropSubjects, key: job.resultKey(pipeline)?.fileName)
        result.overrideRevision = job.options.savedCropRevision
        result.contentID = job.identity?.contentID
        result.savedCropsUnknown = job.options.savedCropsUnknown
        return result
    }
}
