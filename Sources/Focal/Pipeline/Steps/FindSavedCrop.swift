/// The crop a person saved for this image at the target's ratio, once the identity and the
/// target are known: its region and revision go into the options (and so into the result key).
/// How it decides the crop is applied once the image's size is known (`ApplySavedCrop`).
struct FindSavedCrop: CropStep {
    let name = "find-saved-crop"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard case .notAsked = job.savedCrop, let identity = job.identity else { return }
        guard job.mayHaveSavedCrop(pipeline) else {
            job.savedCrop = .none
            return
        }
        guard let target = job.target else { return }
        let (options, saved) = try await pipeline.applyingOverride(job.options, identity: identity, target: target)
        job.options = options
        job.savedCrop = options.savedCropsUnknown ? .unknown : saved.map { .found($0) } ?? .none
    }
}
