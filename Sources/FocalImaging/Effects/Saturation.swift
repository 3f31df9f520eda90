public import FocalCore

/// `saturation(F)`: moves every pixel away from (F > 1) or towards (F < 1) its own grey, as
/// thumbor's does (the grey is √(0.299 R² + 0.587 G² + 0.114 B²)); F from -10 to 10.
public struct Saturation: Effect {
    public static let name = "saturation"
    public static let values = "a number from -10 to 10: 1 unchanged, 0 grey, 2 twice as saturated (one outside is brought into it)"
    public static let summary = "more (F > 1) or less (F < 1) colour; 0 is grey"
    public static let examples = ["1.5", "0.5", "0", "2.0"]
    /// The factor.
    public let factor: Double

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        factor = try given.decimal(0, clampedTo: -10...10)
    }

    public var arguments: String { factor.canonicalText }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let change = Float(factor)
        return try image.mappingPixels { pixels in
            pixels.mappingEachPixel { r, g, b in
                let (fr, fg, fb) = (Float(r), Float(g), Float(b))
                let p = (fr * fr * 0.299 + fg * fg * 0.587 + fb * fb * 0.114).squareRoot()
                // As thumbor's C: a float assigned to an int, truncated toward zero.
                let range = -4096...4096
                r = Int(rounding: Double(p + (fr - p) * change).rounded(.towardZero), within: range)
                g = Int(rounding: Double(p + (fg - p) * change).rounded(.towardZero), within: range)
                b = Int(rounding: Double(p + (fb - p) * change).rounded(.towardZero), within: range)
            }
        }
    }
}
