/// thumbor's `trim`: the image's borders of one colour cut off before anything else, the colour
/// being its top-left (or bottom-right) pixel's and every pixel within `tolerance` of it (the
/// distance between two colours in 8-bit RGB, 0 to 442) part of the border.
public struct Trim: Hashable, Sendable, Encodable {
    /// Which corner's pixel is the border's colour.
    public enum Corner: String, Hashable, Sendable, Encodable {
        case topLeft = "top-left"
        case bottomRight = "bottom-right"
    }

    /// The corner whose colour is trimmed; default top-left.
    public var corner: Corner = .topLeft
    /// How far a colour may be from the corner's and still be border; default 0.
    public var tolerance = 0

    /// Trims the top-left pixel's colour exactly.
    public init() {}

    /// Reads thumbor's `trim` segment (`trim`, `trim:bottom-right`, `trim:top-left:10`, `trim:10`),
    /// or the option's value without `trim` (`top-left`, `bottom-right:10`, `10`, `on`).
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(text: String) throws(PlanningError) {
        var parts = text.trimmingSpaces.lowercased().split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "trim" { parts.removeFirst() }
        if parts == ["on"] || parts == [""] { parts = [] }
        guard parts.count <= 2 else { throw Self.refusal(text) }
        if let first = parts.first, let corner = Corner(rawValue: first) {
            self.corner = corner
            parts.removeFirst()
        }
        if let last = parts.first {
            guard parts.count == 1, last.count <= 3, last.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(last), value <= 442 else {
                throw Self.refusal(text)
            }
            tolerance = value
        }
    }

    static func refusal(_ text: String) -> PlanningError {
        .invalidOption("trim '\(text)' must be top-left or bottom-right, then optionally a tolerance from 0 to 442 (top-left:10)")
    }

    /// The canonical text: `top-left`, `bottom-right:10`.
    public var text: String { tolerance == 0 ? corner.rawValue : "\(corner.rawValue):\(tolerance)" }

    /// The part of `pixels` inside the border, as thumbor's bounding box finds it: every row and
    /// column with a pixel farther than `tolerance` from the corner's colour. Nil when every pixel
    /// is border (thumbor then leaves the image whole).
    public func box(in pixels: PixelBuffer) -> PixelRect? {
        let (width, height, bytes) = (pixels.width, pixels.height, pixels.bytes)
        let reference = corner == .topLeft ? 0 : 3 * (width * height - 1)
        let (r0, g0, b0) = (Int(bytes[reference]), Int(bytes[reference + 1]), Int(bytes[reference + 2]))
        let limit = tolerance * tolerance
        func differs(_ x: Int, _ y: Int) -> Bool {
            let i = 3 * (y * width + x)
            let (dr, dg, db) = (Int(bytes[i]) - r0, Int(bytes[i + 1]) - g0, Int(bytes[i + 2]) - b0)
            return dr * dr + dg * dg + db * db > limit
        }
        var (left, top, right, bottom) = (width, height, -1, -1)
        for y in 0..<height {
            guard let first = (0..<width).first(where: { differs($0, y) }) else { continue }
            left = min(left, first)
            top = min(top, y)
            bottom = y
            if let last = (first..<width).reversed().first(where: { differs($0, y) }) { right = max(right, last) }
        }
        guard right >= left, bottom >= top else { return nil }
        return PixelRect(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }
}
