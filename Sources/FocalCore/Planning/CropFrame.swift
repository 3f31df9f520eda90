/// Sizes and places crops of one target aspect inside one image.
struct CropFrame {
    let imageSize: PixelSize
    let ratio: Double
    /// The largest crop of the target aspect inside the image.
    let fill: PixelSize

    init(imageSize: PixelSize, target: CropTarget) {
        self.imageSize = imageSize
        let (a, b) = target.terms
        ratio = Double(a) / Double(b)
        let (w, h) = (imageSize.width, imageSize.height)
        // Compare in integers so that an image already at the target aspect is never trimmed.
        // Products of a side (at most 65 535 by the limits) and an aspect term: checked all the same.
        let (wide, o1) = w.multipliedReportingOverflow(by: b), (tall, o2) = h.multipliedReportingOverflow(by: a)
        if o1 || o2 ? Double(w) * Double(b) >= Double(h) * Double(a) : wide >= tall {
            fill = PixelSize(width: min(w, max(1, Int(saturating: (Double(h) * ratio).rounded()))), height: h)
        } else {
            // Width-limited: round the height, then take the width from it so that the aspect
            // holds within a pixel even for wide targets (1002x300 at 5:1 is 1000x200).
            var height = min(h, max(1, Int(saturating: (Double(w) / ratio).rounded())))
            var width = w
            if abs(Double(w) - Double(height) * ratio) > 1 {
                width = Int(saturating: (Double(height) * ratio).rounded())
                if width > w && height > 1 {
                    height -= 1
                    width = Int(saturating: (Double(height) * ratio).rounded())
                }
            }
            fill = PixelSize(width: min(w, max(1, width)), height: height)
        }
    }

    var imageBox: Box { Box(x: 0, y: 0, width: Double(imageSize.width), height: Double(imageSize.height)) }

    /// The crop size for `region` under `zoom`: `fill` is the largest crop; `subject(f)` the
    /// smallest crop in which the region spans at most `f` of each side, but at least `minimum`
    /// (the output size) and at most `fill`.
    func size(toHold region: Box, zoom: Zoom, minimum: PixelSize) -> PixelSize {
        guard case let .subject(f) = zoom else { return fill }
        let needed = max(region.height / f, region.width / (f * ratio), Double(minimum.height),
                         Double(minimum.width) / ratio, 1)
        // Compared as a Double first: a tiny fraction makes `needed` too large for an Int.
        guard needed.isFinite, needed < Double(fill.height) else { return fill }
        let height = Int(saturating: needed.rounded(.up))
        guard height < fill.height else { return fill }
        let width = Int(saturating: (Double(height) * ratio).rounded())
        guard width <= fill.width, width >= 1 else { return fill }
        return PixelSize(width: width, height: height)
    }

    /// A crop of `size` centred on `region`, shifted to lie inside the image.
    func place(size: PixelSize, centredOn region: Box) -> PixelRect {
        place(size: size, x: region.midX - Double(size.width) / 2, y: region.midY - Double(size.height) / 2)
    }

    /// A crop of `size` at (`x`, `y`) rounded to pixels and shifted to lie inside the image.
    func place(size: PixelSize, x: Double, y: Double) -> PixelRect {
        let maxX = imageSize.width - size.width, maxY = imageSize.height - size.height
        return PixelRect(x: Self.clamp(x, 0, maxX), y: Self.clamp(y, 0, maxY), width: size.width, height: size.height)
    }

    /// `value` rounded down and kept within `low...high`, whatever it is (NaN goes to `low`):
    /// converting a huge or non-finite Double to Int would trap.
    static func clamp(_ value: Double, _ low: Int, _ high: Int) -> Int {
        guard value.isFinite else { return value == .infinity ? high : low }
        if value <= Double(low) { return low }
        if value >= Double(high) { return high }
        return min(max(Int(saturating: value.rounded(.down)), low), high)
    }
}
