public import FocalCore
import FocalImaging

/// An RGB colour.
public struct RGB: Hashable, Sendable {
    /// Red, green and blue, 0...255.
    public var r, g, b: UInt8
    /// Creates a colour.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
}

/// Draws rectangles, shading and labels on a copy of an RGB image: the debug overlays.
public struct Canvas: Sendable {
    /// The picture so far.
    public private(set) var width: Int, height: Int
    private var bytes: [UInt8]

    /// Starts from a copy of `pixels`.
    public init(_ pixels: PixelBuffer) {
        width = pixels.width
        height = pixels.height
        bytes = pixels.bytes
    }

    /// A blank picture of one colour.
    public init(width: Int, height: Int, color: RGB) {
        self.width = max(1, width)
        self.height = max(1, height)
        bytes = [UInt8](repeating: 0, count: self.width * self.height * 3)
        for i in 0..<(self.width * self.height) {
            bytes[3 * i] = color.r
            bytes[3 * i + 1] = color.g
            bytes[3 * i + 2] = color.b
        }
    }

    /// Copies `image` with its top-left corner at (`x`, `y`), clipped to the canvas.
    public mutating func draw(_ image: PixelBuffer, x: Int, y: Int) {
        for row in 0..<image.height where y + row >= 0 && y + row < height {
            for column in 0..<image.width where x + column >= 0 && x + column < width {
                let from = (row * image.width + column) * 3, to = ((y + row) * width + x + column) * 3
                bytes[to] = image.bytes[from]
                bytes[to + 1] = image.bytes[from + 1]
                bytes[to + 2] = image.bytes[from + 2]
            }
        }
    }

    /// The picture as a pixel buffer.
    public var pixels: PixelBuffer {
        PixelBuffer(unchecked: width, height: height, bytes: bytes)
    }

    /// Darkens everything outside `rect` to `factor` (clamped to 0...1) of its brightness.
    public mutating func shadeOutside(_ rect: Box, factor: Double = 0.35) {
        let factor = min(max(factor.isFinite ? factor : 0, 0), 1)
        let (x0, y0, x1, y1) = edges(of: rect, margin: 1)
        for y in 0..<height {
            let rowInside = y >= y0 && y < y1
            for x in 0..<width where !(rowInside && x >= x0 && x < x1) {
                let i = (y * width + x) * 3
                for c in 0..<3 { bytes[i + c] = UInt8(Double(bytes[i + c]) * factor) }
            }
        }
    }

    /// Strokes the outline of `rect` with `thickness` pixels inside it; `dash` > 0 draws dashes.
    public mutating func stroke(_ rect: Box, color: RGB, thickness: Int = 2, dash: Int = 0) {
        let thickness = min(max(thickness, 0), max(width, height))
        let edges = edges(of: rect, margin: thickness + 1)
        let (x0, y0, x1, y1) = (edges.x0, edges.y0, edges.x1 - 1, edges.y1 - 1)
        guard x1 >= x0, y1 >= y0 else { return }
        for t in 0..<thickness {
            for x in x0...x1 where dash == 0 || (x / dash) % 2 == 0 {
                plot(x, y0 + t, color)
                plot(x, y1 - t, color)
            }
            for y in y0...y1 where dash == 0 || (y / dash) % 2 == 0 {
                plot(x0 + t, y, color)
                plot(x1 - t, y, color)
            }
        }
    }

    /// Writes `text` with its top-left corner at (`x`, `y`) on a dark band, about `size` pixels tall.
    /// Text that libvips cannot render (no fonts installed) is left out.
    public mutating func label(_ text: String, x: Int, y: Int, color: RGB, size: Int = 14) {
        guard let mask = TextMask.render(text, height: size) else { return }
        let (mw, mh) = (mask.width, mask.height)
        let top = max(0, min(y, height - mh - 4)), left = max(0, min(x, width - mw - 4))
        for yy in 0..<(mh + 4) {
            for xx in 0..<(mw + 4) {
                let px = left + xx, py = top + yy
                guard px < width, py < height else { continue }
                let i = (py * width + px) * 3
                let inMask = xx >= 2 && yy >= 2 && xx - 2 < mw && yy - 2 < mh
                let alpha = inMask ? Double(mask.coverage[(yy - 2) * mw + (xx - 2)]) / 255 : 0
                let shade = [color.r, color.g, color.b]
                for c in 0..<3 {
                    let background = Double(bytes[i + c]) * 0.3
                    bytes[i + c] = UInt8(min(255, background * (1 - alpha) + Double(shade[c]) * alpha))
                }
            }
        }
    }

    /// The rectangle's edges in whole pixels, kept within `margin` pixels around the canvas, so that
    /// a box of any size (a subject from a caller, scaled) draws in time bounded by the canvas.
    private func edges(of rect: Box, margin: Int) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        let xs = -margin...(width + margin), ys = -margin...(height + margin)
        return (
            Int(rounding: rect.x, within: xs), Int(rounding: rect.y, within: ys),
            Int(rounding: rect.maxX, within: xs), Int(rounding: rect.maxY, within: ys)
        )
    }

    private mutating func plot(_ x: Int, _ y: Int, _ color: RGB) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        bytes[i] = color.r
        bytes[i + 1] = color.g
        bytes[i + 2] = color.b
    }
}
