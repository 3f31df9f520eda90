/// The saved crop's rule (`SavedCropRule`), once the image's size is known: the crop, scaled to
/// the output within the upscale limit, as the crop options the frame is planned with
/// (`CropJob.frameCrop`). The options themselves, and so the result key, stay as found.
struct ApplySavedCrop: CropStep {
    let name = "apply-saved-crop"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard case .found = job.savedCrop, let image = job.image, let target = job.target else { return }
        job.frameCrop = pipeline.savedCropApplied(job.options, target: target, imageSize: image.size)
    }
}
