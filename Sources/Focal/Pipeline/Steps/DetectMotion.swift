import FocalCore
import FocalDetection
import FocalImaging
import Synchronization

/// The subjects of an animation's sampled frames (`MotionPlanner.sampledFrames`), so that one
/// window, or a moving one, keeps the subjects of the whole animation and not only of its first
/// frame. Frame 0's are the job's own (`Detect`); the others are decoded in one pass over the file.
struct DetectMotion: CropStep {
    let name = "detect-frames"

    /// The most frames detected on.
    static let samples = 12
    /// The long side frames are decoded at for detection, at most.
    static let detectionLongSide = 1600

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.frameSubjects == nil, let animation = job.animation, let image = job.image, job.subjects != nil,
            job.options.crop.needsDetection, job.fallback == nil
        else { return }
        var found: [(frame: Int, subjects: [Subject])] = [(0, job.cropSubjects)]
        let sampled = MotionPlanner.sampledFrames(animation.frames, count: Self.samples).filter { $0 > 0 }
        if !sampled.isEmpty {
            let reader = try await pipeline.pool.run { try image.frames(of: animation) }
            for frame in sampled {
                try Task.checkCancellation()
                let copy = try await pipeline.frameCopy(frame, of: reader, image: image)
                let subjects = try await pipeline.subjects(
                    of: copy, identity: job.subjectIdentity?.frame(frame), accuracy: job.options.accuracy,
                    scope: job.options.crop.kinds == nil ? .crop : .everything)
                found.append((frame, subjects))
            }
        }
        job.frameSubjects = found
    }
}

extension FocalPipeline {
    /// Frame `frame` of an animation decoded whole (at most `DetectMotion.detectionLongSide`), as
    /// a working copy the detectors read.
    func frameCopy(_ frame: Int, of reader: AnimationFrames, image: SourceImage) async throws -> WorkingCopy {
        let canvas = reader.animation.canvas
        let size = canvas.fitting(longSide: min(max(canvas.width, canvas.height), DetectMotion.detectionLongSide))
        let decoded = try await pool.run { () throws -> RenderedImage in
            try reader.frame(frame, crop: PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height), to: size)
        }
        counters.withLock { $0.proxyDecodes += 1 }
        return WorkingCopy(image: image, frame: decoded, pool: pool)
    }
}
