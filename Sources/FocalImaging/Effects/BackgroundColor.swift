public import FocalCore

/// `background_color(COLOUR)`: a transparent image's transparency filled with the colour, as
/// thumbor's; an image without alpha is unchanged.
public struct BackgroundColor: Effect {
    public static let name = "background_color"
    public static let values = "a colour: hex digits (`ff0000`, `f00`) or a basic name (`black`, `white`, `silver`, ...)"
    public static let summary = "fills transparency with the colour (a PNG's, or one `round_corner(…,true)` made)"
    public static let examples = ["ffcc00", "white", "#000000", "F0F"]
    /// The colour.
    public let colour: RGBColour

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        colour = try given.colour(0)
    }

    public var arguments: String { colour.hex }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage { try image.flattened(on: colour) }
}
