public import FocalCore

/// `background_color(COLOUR)`: a transparent image's transparency filled with the colour, as
/// thumbor's (`auto`: the image's mean colour, as `fill(auto)`); an image without alpha is
/// unchanged.
public struct BackgroundColor: Effect {
    public static let name = "background_color"
    public static let values = "a colour: hex digits (`ff0000`, `f00`), a basic name (`black`, `white`, `silver`, ...) or `auto` (the image's mean colour)"
    public static let summary = "fills transparency with the colour (a PNG's, or one `round_corner(…,true)` made)"
    public static let examples = ["ffcc00", "white", "#000000", "F0F"]
    /// The colour; nil for `auto`, the image's mean colour.
    public let colour: RGBColour?

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        colour = given.text(0)?.lowercased() == "auto" ? nil : try given.colour(0)
    }

    public var arguments: String { colour?.hex ?? "auto" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        if let colour { return try image.flattened(on: colour) }
        let mean = Fill.mean(try image.pixels())
        return try image.flattened(on: mean)
    }
}
