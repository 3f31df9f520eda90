public import FocalCore

/// `brightness(N)`: adds N % of full scale (N from -100 to 100) to every channel, as thumbor's does.
public struct Brightness: Effect {
    public static let name = "brightness"
    public static let values = "a whole number from -100 to 100 (percent of full scale; one outside is brought into it)"
    public static let summary = "lightens (or, negative, darkens) every pixel by that share of white"
    public static let examples = ["40", "-20", "0"]
    /// The change, -100...100.
    public let percent: Int

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        percent = try given.integer(0, clampedTo: -100...100)
    }

    public var arguments: String { String(percent) }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let delta = 255 * percent / 100
        let table = (0..<256).map { UInt8(clamping: $0 + delta) }
        return try image.mappingPixels { $0.lookingUp(red: table, green: table, blue: table) }
    }
}
