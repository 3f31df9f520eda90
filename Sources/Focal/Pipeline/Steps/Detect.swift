import FocalDetection

/// The working copy (one decode, at the larger of what the detectors and the output need) and
/// the subjects the job's scopes use, from the detection cache or the detectors. A crop whose
/// detection fails falls back to a centre crop when its options say so.
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
            job.subjects = try await pipeline.subjects(of: copy, identity: job.identity, accuracy: job.options.accuracy, scopes: job.scopes)
        } catch let error as DetectionError where job.wantsResult && job.options.fallback == .centerCrop {
            guard let target = job.target else { throw error }
            job.result = try await pipeline.centerFallback(image, to: target, options: job.options, reason: error)
            job.finished = true
        }
    }
}
