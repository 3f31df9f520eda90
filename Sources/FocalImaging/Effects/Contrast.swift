public import FocalCore

/// `contrast(N)`: scales every channel away from (or, negative, towards) mid-grey, as thumbor's
/// does: by ((N + 100)² / 100) %, N from -100 to 100.
public struct Contrast: Effect {
    public static let name = "contrast"
    public static let values = "a whole number from -100 to 100 (one outside is brought into it)"
    public static let summary = "more contrast (or, negative, less): channels move away from mid-grey by ((N + 100)² / 100) %"
    public static let examples = ["40", "-30", "0"]
    /// The change, -100...100.
    public let amount: Int

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...1)
        amount = try given.integer(0, clampedTo: -100...100)
    }

    public var arguments: String { String(amount) }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let factor = (amount + 100) * (amount + 100) / 100
        let table = (0..<256).map { UInt8(clamping: factor * ($0 - 128) / 100 + 128) }
        return try image.mappingPixels { $0.lookingUp(red: table, green: table, blue: table) }
    }
}
