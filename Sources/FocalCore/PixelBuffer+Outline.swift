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
            for y in r.y..<(r.y + r.height) {
                let edgeRow = y < r.y + t || y >= r.y + r.height - t
                for x in r.x..<(r.x + r.width) where edgeRow || x < r.x + t || x >= r.x + r.width - t {
                    let i = 3 * (y * width + x)
                    out[i] = outline.red
                    out[i + 1] = outline.green
                    out[i + 2] = outline.blue
                }
            }
        }
        return PixelBuffer(unchecked: width, height: height, bytes: out)
    }
}
