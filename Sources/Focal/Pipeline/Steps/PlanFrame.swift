import FocalCore

/// The plan of the job's frame, from the subjects a crop uses and the resolved options: the one
/// planning step every door takes (a crop, `meta/`, `/v1/plan`, the command line). With
/// `stretch()`, the whole image (or its bounds) resized to the size asked.
struct PlanFrame: CropStep {
    let name = "plan"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.plan == nil, let image = job.image, let target = job.target else { return }
        try image.deadline.check(source: image.name)
        if job.options.sizing.stretch {
            // stretch(): the whole image (or its bounds), resized to the size asked.
            let whole = job.planCrop.bounds?.clipped(to: image.size) ?? PixelRect(x: 0, y: 0, width: image.size.width, height: image.size.height)
            let output: PixelSize
            if case let .size(w, h) = target { output = PixelSize(width: w, height: h) } else { output = whole.size }
            try pipeline.configuration.limits.check(output: output)
            job.plan = CropPlan(imageSize: image.size, crop: whole, outputSize: output, region: nil, subjects: [], strategy: .stretch)
            return
        }
        let plan = try Analysis(image: image, subjects: job.cropSubjects).plan(target, options: job.planCrop)
        // An aspect's output, and a tight crop's (whose other side follows the subjects), is
        // the plan's own: checked against the output limits here.
        if case .aspect = target { try pipeline.configuration.limits.check(output: plan.outputSize) }
        if job.planCrop.tight != nil { try pipeline.configuration.limits.check(output: plan.outputSize) }
        job.plan = plan
    }
}
