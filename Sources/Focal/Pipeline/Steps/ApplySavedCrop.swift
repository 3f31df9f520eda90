/// The saved crop's rule (`SavedCropRule`), once the image's size is known: the crop, scaled to
/// the output within the upscale limit.
struct ApplySavedCrop: CropStep {
    let name = "apply saved crop"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard case .found = job.savedCrop, let image = job.image, let target = job.target else { return }
        job.options.crop = pipeline.savedCropApplied(job.options, target: target, imageSize: image.size)
    }
}
