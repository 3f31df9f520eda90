import FocalCore
import FocalImaging

/// thumbor's `trim`: once the image is open, the borders of its corner's colour are found on a
/// copy of at most `TrimBorders.longSide` pixels a side (the box scaled back, rounded outwards)
/// and the rest of the crop happens inside what is left: a URL's `AxB:CxD` is then a part of the
/// trimmed image, as in thumbor. Runs before the target is derived from the image's size.
struct TrimBorders: CropStep {
    let name = "trim"

    /// The longest side of the copy the borders are found on: an image up to this size is
    /// trimmed to the pixel, as thumbor does; a larger one within a pixel of the copy.
    static let longSide = 2048

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard let trim = job.options.trim, !job.trimChecked, let image = job.image else { return }
        job.trimChecked = true
        let size = image.size
        let copy = size.fitting(longSide: Self.longSide)
        let pixels = try await pipeline.pool.run { try image.pixels(width: copy.width, height: copy.height) }
        guard let found = trim.box(in: pixels) else { return }
        let (sx, sy) = (Double(size.width) / Double(copy.width), Double(size.height) / Double(copy.height))
        let left = Int((Double(found.x) * sx).rounded(.down)), top = Int((Double(found.y) * sy).rounded(.down))
        let right = min(size.width, Int((Double(found.x + found.width) * sx).rounded(.up)))
        let bottom = min(size.height, Int((Double(found.y + found.height) * sy).rounded(.up)))
        let trimmed = PixelRect(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
        // A manual crop is a part of the trimmed image.
        if let manual = job.options.crop.bounds {
            let moved = PixelRect(x: trimmed.x + manual.x, y: trimmed.y + manual.y, width: manual.width, height: manual.height)
            let left = max(moved.x, trimmed.x), top = max(moved.y, trimmed.y)
            let right = min(moved.x + moved.width, trimmed.x + trimmed.width), bottom = min(moved.y + moved.height, trimmed.y + trimmed.height)
            job.trimmed = right > left && bottom > top ? PixelRect(x: left, y: top, width: right - left, height: bottom - top) : trimmed
        } else {
            job.trimmed = trimmed
        }
    }
}
