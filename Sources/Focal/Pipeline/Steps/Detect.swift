import FocalDetection

/// The working copy (one decode, at the larger of what the detectors and the output need) and
/// the subjects the job's scopes use, from the detection cache or the detectors. A crop whose
/// detection fails falls back to a centre crop when its options say so (`CropJob.fallback`):
/// no subjects, and the steps after run as for any crop, so a redaction still looks for its
/// faces (and fails closed when it cannot) and every change still applies.
struct Detect: CropStep {
    let name = "detect"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.subjects == nil, let image = job.image else { return }
        let longSide = job.target.flatMap { pipeline.outputLongSide(image, $0, job.planCrop) }
        let copy = pipeline.workingCopy(of: image, accuracy: job.options.accuracy, outputLongSide: longSide)
        job.copy = copy
        guard job.options.crop.needsDetection else {
            job.subjects = [:]
            return
        }
        do {
            // Kinds chosen per request (`kinds(…)`) may name one a crop's detection skips once
            // faces are found (saliency): every stage runs, and the crop reads them all.
            let everything = job.options.crop.kinds != nil
            var found = try await pipeline.subjects(
                of: copy, identity: job.subjectIdentity, accuracy: job.options.accuracy, scopes: everything ? job.scopes.union([.everything]) : job.scopes)
            if everything { found[.crop] = found[.everything] }
            job.subjects = found
        } catch let error as DetectionError where job.wantsResult && job.options.fallback == .centerCrop {
            job.fallback = "\(error)"
            job.subjects = [:]
        }
    }
}
