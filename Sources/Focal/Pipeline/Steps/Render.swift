import FocalCore
import FocalImaging
import Foundation
import Synchronization

/// The plan rendered and encoded: a detecting crop from the working copy's decode when it holds
/// enough pixels, otherwise (and always for a plain crop) from the file at the output's scale.
/// Which of the two depends only on the image, the options and the plan, never on whether the
/// detectors ran in this process: one plan renders the same bytes on every replica and after a
/// restart, so one ETag always stands for one set of bytes. An animated plan renders every frame
/// from the file.
///
/// The rendered pixels are changed before encoding by the frame changes the options ask for, in
/// the order of `FocalPipeline.frameChanges` (redaction, detections drawn, mirroring, effects,
/// watermark, fill, frame). The crop renders from the same source as without them, so every
/// other pixel is the same. What this step keeps for itself: the limits on the changes' work and
/// canvas, the output format (`autojpg`), the encode and the `max_bytes` search.
struct Render: CropStep {
    let name = "render"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, let plan = job.plan, let image = job.image else { return }
        try Task.checkCancellation()
        let options = job.options
        let changes = try await pipeline.readyFrameChanges(for: job, plan: plan)
        let change = changes.combined
        let output = plan.outputSize
        // A change mirrors the frame itself, before its effects (as thumbor flips before its
        // filters): the encoder does not mirror it again.
        var encoding = options.encoding
        if change != nil { encoding.flip = [] }
        // fill(…) makes each frame its box's size, frame(…) grows it by its margins: within the
        // output limits too.
        // Convolving filters are bounded by their work, before any is done.
        let limits = pipeline.configuration.limits
        let frameCount = job.animation != nil ? (plan.frames?.count ?? 1) : 1
        try limits.check(filterTaps: options.effects.taps, output: output, frames: frameCount)
        let canvas = changes.canvas(from: output)
        if canvas != output {
            try limits.check(output: canvas)
            if job.animation != nil, let frames = plan.frames { try limits.check(frames: frames.count, output: canvas) }
        }
        if let animation = job.animation, let frames = plan.frames, let format = options.animatedFormat(for: image.format) {
            let settings = try EncodeSettings(format: format, options: encoding)
            var transform: (@Sendable (Int, [Box], RenderedImage) throws -> RenderedImage)? = nil
            if let change {
                transform = { index, hidden, image in
                    try change(image, FrameContext(index: index, crop: frames[index].crop, output: output, hidden: hidden))
                }
            }
            // A redaction searches each frame as it is rendered, from the same decode.
            var finding: (@Sendable (Int, WorkingCopy) async throws -> [Box])? = nil
            if let redaction = options.redaction {
                let identity = job.subjectIdentity
                finding = { index, copy in try await FindRedactions.found(in: copy, identity: identity?.frame(index), by: redaction, pipeline) }
            }
            let data = try await pipeline.renderAnimation(
                image, animation: animation, plan: plan, frames: frames, frameSize: canvas, settings: settings, finding: finding, transform: transform)
            job.result = result(data, format: format, plan: plan, job: job, pipeline: pipeline)
            return
        }
        var format = try options.outputFormat(for: image.format, size: canvas)
        // autojpg(): a PNG kept from the input goes out as JPEG when it has no alpha.
        if options.autoJPEG, format == .png, options.format == nil, options.automaticFormat == nil, image.bands != 2, image.bands != 4 {
            format = .jpeg
        }
        var transform: PixelTransform? = nil
        let hidden = job.redacted ?? []
        if let change { transform = { image in try change(image, FrameContext(index: 0, crop: plan.crop, output: output, hidden: hidden)) } }
        // A fallback renders from the file, as a crop without detection does.
        let copy = options.crop.needsDetection && job.fallback == nil ? job.copy : nil
        let (chosenFormat, chosenTransform, chosenEncoding) = (format, transform, encoding)
        let encode = { @Sendable (quality: Int) async throws -> Data in
            let (format, transform) = (chosenFormat, chosenTransform)
            var encoding = chosenEncoding
            encoding.quality = quality
            let settings = try EncodeSettings(format: format, options: encoding)
            if let copy { return try await pipeline.render(plan, of: copy, settings: settings, transform: transform) }
            if let transform { return try await pipeline.render(image, plan: plan, settings: settings, transform: transform) }
            return try await pipeline.render(image, plan: plan, settings: settings)
        }
        var data = try await encode(options.quality)
        if let limit = options.maxBytes, data.count > limit, format.descriptor.takesQuality {
            // Each further encode is counted in the filters' work bound: its filters again and
            // the format's own cost, over the output's pixels.
            // Each encode is of the whole canvas (`fill`, `frame`), the filters of the output.
            let taps = options.effects.taps, output = canvas
            let spent = Int(saturating: Double(taps) * Double(output.area))
            let allowed = limits.tries(taps: taps + format.descriptor.encodeTaps, output: output, spent: spent)
            let fitted = try await Self.largestQuality(below: options.quality, fitting: limit, tries: allowed, encode: encode)
            // None at all only when the search was cut short (or had no quality below to try).
            guard let fitted else {
                if options.quality <= 1 {
                    job.result = result(data, format: format, plan: plan, job: job, pipeline: pipeline)
                    return
                }
                let each = Int(saturating: Double(taps + format.descriptor.encodeTaps) * Double(output.area))
                throw LimitExceeded(
                    .outputTooLarge, limit: "maxFilterWork", allowed: "\(limits.maxFilterWork) pixel-taps",
                    actual: "max_bytes(\(limit)) needs more encodes of a \(output) \(format.rawValue.uppercased()) than fit (each costs \(each), \(allowed) allowed); a smaller output, a larger max_bytes or JPEG fits"
                ).naming(image.name)
            }
            data = fitted
        }
        job.result = result(data, format: format, plan: plan, job: job, pipeline: pipeline)
    }

    /// `max_bytes(N)`: the output at the largest quality under `quality` whose bytes fit `limit`
    /// (a binary search: at most 7 more encodes, and at most `tries`), or at quality 1 when the
    /// whole search finds none that fits; nil when a search cut short by `tries` found none.
    static func largestQuality(below quality: Int, fitting limit: Int, tries: Int = 7, encode: (Int) async throws -> Data) async throws -> Data? {
        var (low, high) = (1, quality - 1)
        var best: Data?, smallest: Data?
        var left = tries
        while low <= high {
            guard left > 0 else { return best }
            left -= 1
            try Task.checkCancellation()
            let middle = (low + high) / 2
            let data = try await encode(middle)
            if data.count <= limit {
                best = data
                low = middle + 1
            } else {
                if middle == 1 { smallest = data }
                high = middle - 1
            }
        }
        return best ?? smallest
    }

    private func result(_ data: Data, format: ImageFormat, plan: CropPlan, job: CropJob, pipeline: FocalPipeline) -> CropResult {
        var result = CropResult(data: data, format: format, plan: plan, detected: job.cropSubjects, key: job.resultKey(pipeline)?.fileName)
        if let reason = job.fallback {
            result.origin = .centerCropFallback(reason: reason)
            result.key = nil
            pipeline.counters.withLock { $0.fallbacks += 1 }
        }
        result.overrideRevision = job.options.savedCropRevision
        result.contentID = job.identity?.contentID
        result.savedCropsUnknown = job.options.savedCropsUnknown
        return result
    }
}
