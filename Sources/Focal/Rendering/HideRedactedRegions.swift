import FocalCore
import FocalImaging

/// `redact(…)`: what `FindRedactions` found in the frame is hidden (in an animation, found as its
/// frames are rendered). Fails closed: nothing renders unless the regions were looked for, in
/// the image and in each overlay's own image.
struct HideRedactedRegions: FrameChange {
    let name = "redact"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let redaction = job.options.redaction else { return nil }
        if job.redacted == nil || job.overlayImages.keys.contains(where: { job.redactedOverlays[$0] == nil }) {
            throw ImagingError(.internalFailure, "the redaction's regions were not found before rendering", source: job.image?.name ?? job.input.description)
        }
        return ReadyFrameChange { image, frame in
            try image.redacting(FocalPipeline.outputRegions(frame.hidden, crop: frame.crop, output: frame.output), with: redaction)
        }
    }
}
