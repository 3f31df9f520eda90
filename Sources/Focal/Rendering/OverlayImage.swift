import FocalCore
import FocalImaging

extension FocalPipeline {
    /// The image of overlay slot `slot` (`OverlaySlot.name`) as a frame change lays it: decoded
    /// once, at most `plan`'s output size (never enlarged), and, under a redaction, with what
    /// `FindRedactions` found in it hidden. Nil when the job has no image in that slot.
    func overlayImage(_ slot: String, of job: CropJob, for plan: CropPlan) async throws -> RenderedImage? {
        guard let source = job.overlayImages[slot] else { return nil }
        let side = max(plan.outputSize.width, plan.outputSize.height)
        let size = source.size.fitting(longSide: min(side, max(source.size.width, source.size.height)))
        let decoded = try await pool.run { try source.decode(width: size.width, height: size.height) }
        guard let redaction = job.options.redaction, let found = job.redactedOverlays[slot] else { return decoded }
        let whole = PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height)
        let regions = Self.outputRegions(found, crop: whole, output: size)
        return try await pool.run { try decoded.redacting(regions, with: redaction) }
    }

    /// The images of the first `count` overlays of `filter` (`watermark`, `image`), in order, each
    /// as `overlayImage` makes it, with its place among them; those the job has none for are
    /// left out.
    func overlayImages(_ filter: String, count: Int, of job: CropJob, for plan: CropPlan) async throws -> [(index: Int, image: RenderedImage)] {
        var images: [(index: Int, image: RenderedImage)] = []
        for index in 0..<count {
            guard let image = try await overlayImage(OverlaySlot.name(filter, index), of: job, for: plan) else { continue }
            images.append((index, image))
        }
        return images
    }
}
