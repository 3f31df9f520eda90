public import FocalCore

/// `rotate(DEGREES)`: the output turned anticlockwise by a multiple of 90 degrees, as thumbor's
/// (PIL's direction; thumbor ignores other angles, Focal refuses them). The turn comes after the
/// crop, so a 90° turn gives an output of the requested height by the requested width.
public struct Rotate: Effect {
    public static let name = "rotate"
    public static let values = "a multiple of 90 (degrees anticlockwise, as thumbor; negative turns clockwise)"
    public static let summary = "turns the output by quarter turns, after the crop"
    public static let examples = ["90", "180", "-90", "450"]
    /// Degrees anticlockwise, 0, 90, 180 or 270.
    public let degrees: Int

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        let value = try given.integer(0, in: -36000...36000)
        guard value % 90 == 0 else { throw given.refusal("\(value) (only quarter turns keep every pixel)") }
        degrees = ((value % 360) + 360) % 360
    }

    public var arguments: String { String(degrees) }

    public func outputSize(of size: PixelSize) -> PixelSize {
        degrees % 180 == 0 ? size : PixelSize(width: size.height, height: size.width)
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage { try image.rotated(quarterTurns: (360 - degrees) / 90) }
}
