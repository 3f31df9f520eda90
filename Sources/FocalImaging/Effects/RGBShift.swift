public import FocalCore

/// `rgb(R,G,B)`: adds R, G and B % of full scale (each -100 to 100) to the red, green and blue
/// channels, as thumbor's does.
public struct RGBShift: Effect {
    public static let name = "rgb"
    public static let values = "three whole numbers from -100 to 100: red, green, blue (percent of full scale; one outside is brought into it)"
    public static let summary = "shifts each channel by its share of full scale: `rgb(20,0,-20)` warms a photo"
    public static let examples = ["20,0,-20", "0,0,0"]
    /// The changes, -100...100 each.
    public let red, green, blue: Int

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 3...3)
        red = try given.integer(0, clampedTo: -100...100)
        green = try given.integer(1, clampedTo: -100...100)
        blue = try given.integer(2, clampedTo: -100...100)
    }

    public var arguments: String { "\(red),\(green),\(blue)" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        func table(_ percent: Int) -> [UInt8] {
            let delta = 255 * percent / 100
            return (0..<256).map { UInt8(clamping: $0 + delta) }
        }
        return try image.mappingPixels { $0.lookingUp(red: table(red), green: table(green), blue: table(blue)) }
    }
}
