/// The target: a fixed one at once; one derived from the image's size (or its bounds) once the
/// image is open.
struct ResolveTarget: CropStep {
    let name = "resolve target"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.target == nil, let rule = job.rule else { return }
        if let fixed = rule.fixed {
            job.target = fixed
        } else if let image = job.image {
            job.target = try rule.target(for: FocalPipeline.ruleSize(image, job.options.crop))
        }
    }
}
