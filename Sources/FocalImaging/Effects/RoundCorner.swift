public import FocalCore

/// `round_corner(A|B,R,G,B[,TRANSPARENT])`: the output's corners rounded as quarter ellipses of A
/// pixels across and B down (B defaults to A; each at most half the output's side), filled with
/// the colour R, G, B, or left transparent with TRANSPARENT (then a format with alpha keeps them:
/// PNG, WebP, AVIF). Edges are smoothed by 4 × 4 samples a pixel.
public struct RoundCorner: Effect {
    public static let name = "round_corner"
    public static let values = "a radius `A` or `A|B` (pixels, 0 to 10000), red, green and blue (0 to 255), then optionally `true` for transparent corners; or imagor's `RX,RY,COLOUR`"
    public static let summary = "rounds the corners, filled with the colour or left transparent"
    public static let examples = ["20,255,255,255", "30|15,0,0,0,true", "10,0,0,0,false"]
    public static let previewed = false
    /// The ellipse's radii across and down.
    public let across, down: Int
    /// The fill.
    public let colour: RGBColour
    /// Whether the corners are transparent instead.
    public let transparent: Bool

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 3...5)
        if given.count == 3 {
            // imagor's round_corner(RX,RY,COLOUR).
            across = try given.integer(0, in: 0...10_000)
            down = try given.integer(1, in: 0...10_000)
            colour = try given.colour(2)
            transparent = false
            return
        }
        let radii = (given.text(0) ?? "").split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard radii.count <= 2 else { throw given.refusal("'\(given.text(0) ?? "")'") }
        let a = try EffectArguments(radii[0], filter: Self.name, takes: Self.values, counts: 1...1).integer(0, in: 0...10_000)
        across = a
        down = radii.count == 2 ? try EffectArguments(radii[1], filter: Self.name, takes: Self.values, counts: 1...1).integer(0, in: 0...10_000) : a
        colour = RGBColour(
            red: UInt8(try given.integer(1, in: 0...255)), green: UInt8(try given.integer(2, in: 0...255)), blue: UInt8(try given.integer(3, in: 0...255)))
        transparent = try given.boolean(4, or: false)
    }

    public var arguments: String {
        (across == down ? String(across) : "\(across)|\(down)") + ",\(colour.red),\(colour.green),\(colour.blue)" + (transparent ? ",true" : "")
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let pixels = try image.pixels()
        let (width, height) = (pixels.width, pixels.height)
        let a = min(across, width / 2), b = min(down, height / 2)
        guard a > 0, b > 0 else { return image }
        // How much of each pixel of a top-left corner of a × b lies outside the ellipse.
        var outside = [Double](repeating: 0, count: a * b)
        for y in 0..<b {
            for x in 0..<a {
                var count = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let dx = (Double(a) - (Double(x) + (Double(sx) + 0.5) / 4)) / Double(a)
                        let dy = (Double(b) - (Double(y) + (Double(sy) + 0.5) / 4)) / Double(b)
                        if dx * dx + dy * dy > 1 { count += 1 }
                    }
                }
                outside[y * a + x] = Double(count) / 16
            }
        }
        var rgb = pixels.bytes
        var alpha = transparent ? [UInt8](repeating: 255, count: width * height) : []
        let fill = [Double(colour.red), Double(colour.green), Double(colour.blue)]
        for y in 0..<b {
            for x in 0..<a where outside[y * a + x] > 0 {
                let share = outside[y * a + x]
                for (px, py) in [(x, y), (width - 1 - x, y), (x, height - 1 - y), (width - 1 - x, height - 1 - y)] {
                    let i = py * width + px
                    if transparent {
                        alpha[i] = UInt8(clamping: Int((255 * (1 - share)).rounded()))
                    } else {
                        for c in 0..<3 { rgb[3 * i + c] = UInt8(clamping: Int((Double(rgb[3 * i + c]) * (1 - share) + fill[c] * share).rounded())) }
                    }
                }
            }
        }
        guard transparent else { return try RenderedImage(pixels: PixelBuffer(unchecked: width, height: height, bytes: rgb)) }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            rgba[4 * i] = rgb[3 * i]
            rgba[4 * i + 1] = rgb[3 * i + 1]
            rgba[4 * i + 2] = rgb[3 * i + 2]
            rgba[4 * i + 3] = alpha[i]
        }
        return try RenderedImage(rgba: rgba, size: pixels.size)
    }
}
