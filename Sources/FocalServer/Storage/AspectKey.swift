public import Focal

/// An aspect ratio as overrides are filed: `16x9`, its terms with no common divisor.
public struct AspectKey: Hashable, Sendable, CustomStringConvertible {
    /// The reduced terms.
    public let width: Int, height: Int

    /// Parses `16x9` (or `16:9`) and reduces it.
    /// - Throws: `ServerError` (`request.invalid`) for anything else.
    public init(parsing text: String) throws(ServerError) {
        let parts = text.lowercased().split(whereSeparator: { $0 == "x" || $0 == ":" })
        guard parts.count == 2, let w = (try? ThumborURL.number(parts[0])) ?? nil, let h = (try? ThumborURL.number(parts[1])) ?? nil, w > 0, h > 0,
            w <= 100_000, h <= 100_000
        else { throw ServerError.invalid("an aspect is written like 16x9") }
        self.init(width: w, height: h)
    }

    /// The aspect of a `width` × `height` rectangle, reduced.
    public init(width: Int, height: Int) {
        var (a, b) = (width, height)
        while b != 0 { (a, b) = (b, a % b) }
        let divisor = max(1, a)
        self.width = width / divisor
        self.height = height / divisor
    }

    /// Width over height.
    public var ratio: Double { Double(width) / Double(height) }

    public var description: String { "\(width)x\(height)" }

    /// Whether a crop has this aspect within a pixel, as `CropPlanner` makes them.
    public func matches(_ crop: PixelRect) -> Bool {
        abs(Double(crop.width) - Double(crop.height) * ratio) <= 1 || abs(Double(crop.height) - Double(crop.width) / ratio) <= 1
    }
}
