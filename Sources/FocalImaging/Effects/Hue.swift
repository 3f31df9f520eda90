public import FocalCore

/// `hue(DEGREES)`: every pixel's hue turned by that angle in CIE LCh, its lightness and chroma
/// kept, as imagor's `hue()` (libvips's modulate). thumbor has no hue filter.
public struct Hue: Effect {
    public static let name = "hue"
    public static let values = "degrees from -360 to 360 (decimals allowed)"
    public static let summary = "turns every colour round the colour wheel by that angle (imagor's filter); greys stay grey"
    public static let examples = ["90", "-45.5", "0"]
    /// The turn in degrees, -360...360.
    public let degrees: Double

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        degrees = try given.decimal(0, in: -360...360)
    }

    public var arguments: String { degrees.canonicalText }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        degrees == 0 ? image : try image.hueTurned(by: degrees)
    }
}
