/// The target: a fixed one at once; one derived from the image's size (or its bounds) once the
/// image is open (and its bounds resolved, with `trim` or a relative crop), as is one the sizing
/// filters (`no_upscale()`, `proportion(F)`) change.
struct ResolveTarget: CropStep {
    let name = "resolve-target"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.target == nil, let rule = job.rule else { return }
        let sizing = job.options.sizing
        if let fixed = rule.fixed, !sizing.needsImageSize {
            job.target = fixed
        } else if let image = job.image, (job.options.trim == nil && job.options.relativeCrop == nil) || job.boundsResolved {
            let size = FocalPipeline.ruleSize(image, job.planCrop)
            let target = sizing.adjusted(try rule.target(for: size), imageSize: size)
            try target.validate()
            job.target = target
        }
    }
}
