import FocalDetection

/// What a redaction hides (`FocalOptions.redaction`): every subject of its kinds, found by the
/// most thorough detection Focal has (every detector, the accurate proxy and its small-face pass),
/// whatever the crop itself used: a face a crop could do without is still a face to hide. Each
/// box is grown by `Redaction.margin` on every side.
struct FindRedactions: CropStep {
    let name = "find-redactions"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, job.redacted == nil, let redaction = job.options.redaction, let image = job.image else { return }
        let copy = pipeline.workingCopy(of: image, accuracy: .accurate, outputLongSide: nil)
        let found = try await pipeline.subjects(of: copy, identity: job.identity, accuracy: .accurate, scopes: [.everything])[.everything] ?? []
        job.redacted = found.filter { redaction.hides($0.kind) }.map { subject in
            let box = subject.box
            let (dx, dy) = (box.width * Redaction.margin, box.height * Redaction.margin)
            return Box(x: box.x - dx, y: box.y - dy, width: box.width + 2 * dx, height: box.height + 2 * dy)
        }
    }
}
