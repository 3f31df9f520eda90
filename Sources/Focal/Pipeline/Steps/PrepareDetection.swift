/// Starts libvips and OpenVINO on a thread of their own before the image is read, for a job that
/// will detect (once per process).
struct PrepareDetection: CropStep {
    let name = "prepare-detection"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        if job.options.crop.needsDetection { pipeline.prepareDetection() }
    }
}
