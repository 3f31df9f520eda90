/// A rectangle outline to draw: where, in which colour, how thick.
public struct Outline: Hashable, Sendable {
    /// The rectangle, in the buffer's pixels (clipped to it when drawn).
    public var rect: PixelRect
    /// The colour.
    public var red: UInt8, green: UInt8, blue: UInt8
    /// The line's width in pixels, drawn inside the rectangle.
    public var thickness: Int

    /// Creates an outline.
    public init(_ rect: PixelRect, red: UInt8, green: UInt8, blue: UInt8, thickness: Int) {
        self.rect = rect
        (self.red, self.green, self.blue) = (red, green, blue)
        self.thickness = max(1, thickness)
    }
}

extension PixelBuffer {
    /// The buffer with `outlines` drawn on it, in order (a later one over an earlier one); the
    /// parts of a rectangle outside the buffer are left out.
    public func outlining(_ outlines: [Outline]) -> PixelBuffer {
        var out = bytes
        for outline in outlines {
            guard let r = outline.rect.clipped(to: size) else { continue }
            let t = min(outline.thickness, max(1, min(r.width, r.height) / 2))
            // Four strips: top and bottom rows, then the left and right columns between them.
            let strips = [
                PixelRect(x: r.x, y: r.y, width: r.width, height: t), PixelRect(x: r.x, y: r.y + r.height - t, width: r.width, height: t),
                PixelRect(x: r.x, y: r.y + t, width: t, height: max(0, r.height - 2 * t)),
                PixelRect(x: r.x + r.width - t, y: r.y + t, width: t, height: max(0, r.height - 2 * t)),
            ]
            for strip in strips where strip.width > 0 && strip.height > 0 {
                for y in strip.y..<(strip.y + strip.height) {
                    for x in strip.x..<(strip.x + strip.width) {
                        let i = 3 * (y * width + x)
                        out[i] = outline.red
                        out[i + 1] = outline.green
                        out[i + 2] = outline.blue
                    }
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: out)
    }
}
