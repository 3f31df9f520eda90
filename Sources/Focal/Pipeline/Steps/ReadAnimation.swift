import FocalCore
import FocalImaging

/// Whether the output animates: the input is an animation (GIF, WebP) and the request asks for a
/// format that animates, or none. Its frame count and canvas are checked against the limits
/// (`ImageLimits.check(frames:canvas:)`): over them, it is refused or, when the limits say so,
/// answered with its first frame. `max_frames(N)` keeps the first N frames (within the limits
/// however many the file has).
///
/// An animation to render reserves its frames as decoded (`Animation.decodedBytes`, GIF and WebP
/// alike) on the job's memory budget before any frame is read, beyond the one frame `Open`
/// reserved: libvips holds an animated WebP's frames as it composes them, and a job of a
/// 100-frame 500×400 WebP held about 150 MiB where it had reserved 67.
struct ReadAnimation: CropStep {
    let name = "read-animation"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.animation == nil, job.plan == nil, let image = job.image else { return }
        guard image.pages > 1, !job.wantsResult || job.options.animatedFormat(for: image.format) != nil else { return }
        let limits = pipeline.configuration.limits
        // max_frames(N): the first N frames (1: the first frame, still).
        let most = job.options.maxFrames ?? Int.max
        guard most > 1 else { return }
        do {
            // The header's count first: a frame bomb is refused before its frames are walked.
            try limits.check(frames: min(image.pages, most), canvas: image.size, redacted: job.options.redaction != nil)
            guard var animation = try await pipeline.pool.run({ try image.animation() }) else { return }
            if animation.frames > most {
                animation = Animation(frames: most, canvas: animation.canvas, delays: Array(animation.delays.prefix(most)), loop: animation.loop)
            }
            try limits.check(frames: animation.frames, canvas: animation.canvas, redacted: job.options.redaction != nil)
            if job.wantsResult { try Admission.reserve(animation.decodedBytes - image.decodeBytes) }
            job.animation = animation
        } catch let error as LimitExceeded {
            // A plan alone decodes no frame but the sampled ones: it describes the still crop.
            if limits.overlongAnimations == .firstFrame || !job.wantsResult { return }
            throw error.naming(image.name)
        }
    }
}
