import FocalCore
import FocalImaging
import Foundation

/// The plan rendered and encoded: a detecting crop from the working copy's decode when it holds
/// enough pixels, otherwise (and always for a plain crop) from the file at the output's scale.
/// Which of the two depends only on the image, the options and the plan, never on whether the
/// detectors ran in this process: one plan renders the same bytes on every replica and after a
/// restart, so one ETag always stands for one set of bytes. An animated plan renders every frame
/// from the file.
///
/// The rendered pixels are changed before encoding (`changes`): a redaction hides its regions,
/// then `draw_detections()` draws what Focal saw, then the frame is mirrored and thumbor's
/// filters, watermark, fill and frame apply. The crop renders from the same source as without
/// them, so every other pixel is the same.
struct Render: CropStep {
    let name = "render"

    /// A change to one rendered frame: given its index (0 for a still), the crop it was cut from
    /// and what a redaction hides in it (in pixels of the image).
    typealias FrameChange = @Sendable (Int, PixelRect, [Box], RenderedImage) throws -> RenderedImage

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, let plan = job.plan, let image = job.image else { return }
        try Task.checkCancellation()
        let options = job.options
        // A redaction fails closed: nothing renders unless what it hides was looked for.
        if options.redaction != nil, job.redacted == nil || (job.watermarkImage != nil && job.redactedWatermark == nil)
            || (job.frameImage != nil && job.redactedFrameImage == nil)
        {
            throw ImagingError(.internalFailure, "the redaction's regions were not found before rendering", source: image.name)
        }
        // The watermark decoded once, at most the output's size (thumbor never enlarges it).
        var mark: RenderedImage?
        if let source = job.watermarkImage {
            let side = max(plan.outputSize.width, plan.outputSize.height)
            let size = source.size.fitting(longSide: min(side, max(source.size.width, source.size.height)))
            mark = try await pipeline.pool.run { try source.decode(width: size.width, height: size.height) }
            // A redaction hides what the watermark's own image holds too (`FindRedactions`).
            if let redaction = options.redaction, let found = job.redactedWatermark, let decoded = mark {
                let regions = FocalPipeline.outputRegions(found, crop: PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height), output: size)
                mark = try await pipeline.pool.run { try decoded.redacting(regions, with: redaction) }
            }
        }
        // The frame's nine-patch read once, at its own size (its guides are single pixels).
        var patch: NinePatch.Patch?
        let limits = pipeline.configuration.limits
        if let source = job.frameImage {
            // Decoded whole: no larger than an output may be.
            try limits.check(output: source.size)
            // A redaction hides what the frame's picture holds (`FindRedactions`), never its
            // one-pixel guide border.
            let regions = options.redaction == nil ? [] : Self.inside(
                FocalPipeline.outputRegions(job.redactedFrameImage ?? [], crop: PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height), output: source.size), source.size)
            let redaction = options.redaction
            patch = try await pipeline.pool.run {
                var image = try source.decode(width: source.size.width, height: source.size.height)
                if let redaction { image = try image.redacting(regions, with: redaction) }
                return try NinePatch.Patch(image)
            }
        }
        let change = Self.changes(job, plan: plan, watermark: mark, frame: patch)
        // A change mirrors the frame itself, before its effects (as thumbor flips before its
        // filters): the encoder does not mirror it again.
        var encoding = options.encoding
        if change != nil { encoding.flip = [] }
        // fill(…) makes each frame its box's size, frame(…) grows it by its margins: within the
        // output limits too.
        // Convolving filters are bounded by their work, before any is done.
        let frameCount = job.animation != nil ? (plan.frames?.count ?? 1) : 1
        try limits.check(filterTaps: options.effects.taps, output: plan.outputSize, frames: frameCount)
        let filled = options.deliveredSize(of: plan.outputSize)
        let canvas = patch?.framedSize(filled) ?? filled
        if canvas != plan.outputSize {
            try limits.check(output: canvas)
            if job.animation != nil, let frames = plan.frames { try limits.check(frames: frames.count, output: canvas) }
        }
        if let animation = job.animation, let frames = plan.frames, let format = options.animatedFormat(for: image.format) {
            let settings = try EncodeSettings(format: format, options: encoding)
            var transform: (@Sendable (Int, [Box], RenderedImage) throws -> RenderedImage)? = nil
            if let change { transform = { index, hidden, image in try change(index, frames[index].crop, hidden, image) } }
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
        if let change { transform = { image in try change(0, plan.crop, hidden, image) } }
        let copy = options.crop.needsDetection ? job.copy : nil
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

    /// `regions` clipped to inside a nine-patch of `size`, its one-pixel border left out.
    static func inside(_ regions: [PixelRect], _ size: PixelSize) -> [PixelRect] {
        guard size.width > 2, size.height > 2 else { return [] }
        let inner = PixelSize(width: size.width - 2, height: size.height - 2)
        return regions.compactMap { PixelRect(x: $0.x - 1, y: $0.y - 1, width: $0.width, height: $0.height).clipped(to: inner) }
            .map { PixelRect(x: $0.x + 1, y: $0.y + 1, width: $0.width, height: $0.height) }
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

    /// What the options change in each rendered frame, or nil for nothing: the redaction's regions
    /// hidden (`FindRedactions`; in an animation, found as its frames are rendered), then, for `draw_detections()`, each
    /// subject the crop's detection found drawn in its kind's colour, thicker when the crop was
    /// built around it (in an animation, the subjects of the last sampled frame at or before it),
    /// then the frame is mirrored (`-W`, `-H`: thumbor mirrors before its filters), then each
    /// effect in order, then the watermark is laid over it, then `fill(…)` places the
    /// frame in its box, then `frame(…)`'s nine-patch frames it.
    static func changes(_ job: CropJob, plan: CropPlan, watermark mark: RenderedImage? = nil, frame patch: NinePatch.Patch? = nil) -> FrameChange? {
        let options = job.options
        guard options.redaction != nil || options.drawDetections || !options.effects.isEmpty || options.fill != nil || mark != nil || patch != nil
        else { return nil }
        let redaction = options.redaction, output = plan.outputSize
        let samples = job.frameSubjects ?? [(0, job.cropSubjects)]
        let used = Set(plan.subjects), drawing = options.drawDetections, effects = options.effects
        let fill = options.fill, watermark = options.watermark, flip = options.flip
        let thickness = max(2, max(output.width, output.height) / 150)
        return { index, crop, hidden, image in
            var image = image
            if let redaction { image = try image.redacting(FocalPipeline.outputRegions(hidden, crop: crop, output: output), with: redaction) }
            if drawing {
                let seen = samples.last { $0.frame <= index }?.subjects ?? []
                let regions = FocalPipeline.outputRegions(seen.map(\.box), crop: crop, output: output)
                let outlines = zip(seen, regions).map { subject, rect in
                    let rgb = subject.kind.traits.rgb
                    return Outline(rect, red: rgb.red, green: rgb.green, blue: rgb.blue, thickness: used.contains(subject) ? 2 * thickness : thickness)
                }
                image = try image.outlining(outlines)
            }
            if !flip.isEmpty { image = try image.flipped(flip) }
            image = try effects.apply(to: image)
            if let mark, let watermark { image = try watermark.apply(mark, to: image) }
            image = try fill?.apply(to: image) ?? image
            if let patch { image = try NinePatch.apply(patch, to: image) }
            return image
        }
    }

    private func result(_ data: Data, format: ImageFormat, plan: CropPlan, job: CropJob, pipeline: FocalPipeline) -> CropResult {
        var result = CropResult(data: data, format: format, plan: plan, detected: job.cropSubjects, key: job.resultKey(pipeline)?.fileName)
        result.overrideRevision = job.options.savedCropRevision
        result.contentID = job.identity?.contentID
        result.savedCropsUnknown = job.options.savedCropsUnknown
        return result
    }
}
