import FocalCore
import FocalDetection

/// What a redaction hides (`FocalOptions.redaction`): every subject of its kinds, found by the
/// most thorough detection Focal has (every detector on the accurate proxy, then faces again at a
/// lower threshold and in tiles of a larger copy: `redactionFaces(in:)`), whatever the crop itself
/// used: a face a crop could do without is still a face to hide. Each box is grown by
/// `Redaction.margin(forSide:)` on every side. In an animated output, every frame is
/// searched (one pass over the file), not only the sampled ones, and hides what the frames on
/// either side of it were found to hold too.
struct FindRedactions: CropStep {
    let name = "find-redactions"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, job.redacted == nil, let redaction = job.options.redaction, let image = job.image else { return }
        if let animation = job.animation, job.plan?.frames != nil {
            let reader = try await pipeline.pool.run { try image.frames(of: animation) }
            var frames: [[Box]] = []
            for frame in 0..<animation.frames {
                try Task.checkCancellation()
                let copy = try await pipeline.frameCopy(frame, of: reader, image: image)
                var found = try await pipeline.subjects(of: copy, identity: job.subjectIdentity?.frame(frame), accuracy: .accurate, scope: .everything)
                if redaction.hides(.face) { found += try await pipeline.redactionFaces(in: copy) }
                frames.append(Self.hidden(found, by: redaction))
            }
            // Each frame also hides what its neighbours' searches found: a face the detector
            // misses in one frame of a run is still hidden there.
            let hidden = frames.indices.map { i in frames[max(0, i - 1)...min(frames.count - 1, i + 1)].flatMap { $0 } }
            job.redactedFrames = hidden
            job.redacted = hidden.first ?? []
            return
        }
        let copy = pipeline.workingCopy(of: image, accuracy: .accurate, outputLongSide: nil)
        var found = try await pipeline.subjects(of: copy, identity: job.subjectIdentity, accuracy: .accurate, scopes: [.everything])[.everything] ?? []
        if redaction.hides(.face) { found += try await pipeline.redactionFaces(in: copy) }
        job.redacted = Self.hidden(found, by: redaction)
    }

    /// The boxes `redaction` hides among `found`, grown by `Redaction.margin(forSide:)` (at least
    /// `Redaction.minimumMargin` pixels) on every side.
    static func hidden(_ found: [Subject], by redaction: Redaction) -> [Box] {
        found.filter { redaction.hides($0.kind) }.map { subject in
            let box = subject.box
            let margin = Redaction.margin(forSide: max(box.width, box.height))
            let (dx, dy) = (max(box.width * margin, Redaction.minimumMargin), max(box.height * margin, Redaction.minimumMargin))
            return Box(x: box.x - dx, y: box.y - dy, width: box.width + 2 * dx, height: box.height + 2 * dy)
        }
    }
}
