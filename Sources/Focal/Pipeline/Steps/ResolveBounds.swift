import FocalCore
import FocalImaging

/// The part of the image a crop happens in, when it depends on the image: thumbor's `trim` (the
/// borders of its corner's colour, found on a copy of at most `ResolveBounds.trimSide` pixels a
/// side, the box scaled back and rounded outwards) and imagor's relative crop (`0.1x0.1:0.9x0.9`,
/// fractions of the image). A manual crop, in pixels or fractions, is then a part of the trimmed
/// image, as in thumbor. Runs as soon as the image is open, before the target is derived from its
/// size.
struct ResolveBounds: CropStep {
    let name = "resolve-bounds"

    /// The longest side of the copy the borders are found on: an image up to this size is
    /// trimmed to the pixel, as thumbor does; a larger one within a pixel of the copy.
    static let trimSide = 2048

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        let options = job.options
        guard options.trim != nil || options.relativeCrop != nil, !job.boundsResolved, let image = job.image else { return }
        job.boundsResolved = true
        let size = image.size
        var inside = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        if let trim = options.trim {
            let copy = size.fitting(longSide: Self.trimSide)
            let pixels = try await pipeline.pool.run { try image.pixels(width: copy.width, height: copy.height) }
            if let found = trim.box(in: pixels) {
                let (sx, sy) = (Double(size.width) / Double(copy.width), Double(size.height) / Double(copy.height))
                let (xs, ys) = (0...size.width, 0...size.height)
                let left = Int(rounding: (Double(found.x) * sx).rounded(.down), within: xs)
                let top = Int(rounding: (Double(found.y) * sy).rounded(.down), within: ys)
                let right = Int(rounding: (Double(found.x + found.width) * sx).rounded(.up), within: xs)
                let bottom = Int(rounding: (Double(found.y + found.height) * sy).rounded(.up), within: ys)
                inside = PixelRect(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
            }
        }
        // A manual crop is a part of what is left: in fractions of it, or in its pixels.
        var part: PixelRect?
        if let relative = options.relativeCrop {
            let (w, h) = (Double(inside.width), Double(inside.height))
            let (xs, ys) = (0...inside.width, 0...inside.height)
            let left = Int(rounding: relative.x * w, within: xs), top = Int(rounding: relative.y * h, within: ys)
            let right = Int(rounding: (relative.x + relative.width) * w, within: xs)
            let bottom = Int(rounding: (relative.y + relative.height) * h, within: ys)
            part = PixelRect(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
        } else if let manual = options.crop.bounds {
            part = manual
        }
        if let part {
            let left = max(inside.x, inside.x + part.x), top = max(inside.y, inside.y + part.y)
            let right = min(inside.x + inside.width, inside.x + part.x + part.width)
            let bottom = min(inside.y + inside.height, inside.y + part.y + part.height)
            if right > left, bottom > top { inside = PixelRect(x: left, y: top, width: right - left, height: bottom - top) }
        }
        job.bounds = inside
    }
}
