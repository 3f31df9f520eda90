import FocalCore

/// An output size checked against the image, before anything is decoded: the upscale limit.
struct CheckOutput: CropStep {
    let name = "check-output"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard let image = job.image, case let .size(width, height)? = job.target else { return }
        try image.checkOutput(PixelSize(width: width, height: height))
    }
}
