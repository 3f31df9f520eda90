import FocalCore

/// The plan of the job's frame, from the subjects a crop uses and the resolved options: the one
/// planning step every door takes (a crop, `meta/`, `/v1/plan`, the command line).
struct PlanFrame: CropStep {
    let name = "plan"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.plan == nil, let image = job.image, let target = job.target else { return }
        try image.deadline.check(source: image.name)
        let plan = try Analysis(image: image, subjects: job.cropSubjects).plan(target, options: job.planCrop)
        if case .aspect = target { try pipeline.configuration.limits.check(output: plan.outputSize) }
        job.plan = plan
    }
}
