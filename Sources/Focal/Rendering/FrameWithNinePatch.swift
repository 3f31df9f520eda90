import FocalCore
import FocalImaging

/// `frame(…)`: the frame set inside a nine-patch image, read once at its own size (its guides are
/// single pixels) and no larger than an output may be. Under a redaction, what its picture holds
/// is hidden (`FindRedactions`), never its one-pixel guide border.
struct FrameWithNinePatch: FrameChange {
    let name = "frame"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard let source = job.overlayImages["frame"] else { return nil }
        try pipeline.configuration.limits.check(output: source.size)
        let whole = PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height)
        let regions = job.options.redaction == nil
            ? [] : Self.inside(FocalPipeline.outputRegions(job.redactedOverlays["frame"] ?? [], crop: whole, output: source.size), source.size)
        let redaction = job.options.redaction
        let patch = try await pipeline.pool.run {
            var image = try source.decode(width: source.size.width, height: source.size.height)
            if let redaction { image = try image.redacting(regions, with: redaction) }
            return try NinePatch.Patch(image)
        }
        return ReadyFrameChange(resize: { patch.framedSize($0) }) { image, _ in try NinePatch.apply(patch, to: image) }
    }

    /// `regions` clipped to inside a nine-patch of `size`, its one-pixel border left out.
    static func inside(_ regions: [PixelRect], _ size: PixelSize) -> [PixelRect] {
        guard size.width > 2, size.height > 2 else { return [] }
        let inner = PixelSize(width: size.width - 2, height: size.height - 2)
        return regions.compactMap { PixelRect(x: $0.x - 1, y: $0.y - 1, width: $0.width, height: $0.height).clipped(to: inner) }
            .map { PixelRect(x: $0.x + 1, y: $0.y + 1, width: $0.width, height: $0.height) }
    }
}
