public import FocalCore

/// `colorize(R,G,B,COLOUR)`: blends each channel with the colour's, R, G and B percent of the way
/// (0 to 100 each), as thumbor's does.
public struct Colorize: Effect {
    public static let name = "colorize"
    public static let values = "three whole numbers from 0 to 100 (how far red, green and blue move), then a colour (`ff0000`)"
    public static let summary = "tints: each channel moves that share of the way to the colour's"
    public static let examples = ["40,40,40,ff8800", "100,0,0,ff0000"]
    /// How far each channel moves, 0...100.
    public let red, green, blue: Int
    /// The colour.
    public let colour: RGBColour

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 4...4)
        red = try given.integer(0, in: 0...100)
        green = try given.integer(1, in: 0...100)
        blue = try given.integer(2, in: 0...100)
        colour = try given.colour(3)
    }

    public var arguments: String { "\(red),\(green),\(blue),\(colour.hex)" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        func table(_ percent: Int, _ fill: UInt8) -> [UInt8] {
            (0..<256).map { v in UInt8(clamping: Int((Double(v) * Double(100 - percent) + Double(fill) * Double(percent)) / 100)) }
        }
        return try image.mappingPixels {
            $0.lookingUp(red: table(red, colour.red), green: table(green, colour.green), blue: table(blue, colour.blue))
        }
    }
}
