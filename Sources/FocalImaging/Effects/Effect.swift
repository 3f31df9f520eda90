public import FocalCore

/// One of thumbor's image filters applied to an output's pixels (`filters:grayscale()`,
/// `brightness(10)`, `round_corner(20,255,255,255)`): read from its argument text, printed back in
/// one canonical spelling, and applied to each rendered frame (every frame of an animation), after
/// a redaction and `draw_detections()`, in the order a URL gives them.
///
/// Each effect is one type in a file of its own, listed once in `Effects.all`; the crop option
/// table makes it a row (its URL filter, JSON key, flag and element attribute).
public protocol Effect: Sendable {
    /// Its URL filter's name (`round_corner`); the JSON key, flag and attribute write `_` as `-`.
    static var name: String { get }
    /// The arguments it takes, as a person writes them (for the documentation).
    static var values: String { get }
    /// One line on what it does.
    static var summary: String { get }
    /// Argument texts it accepts, the canonical spelling of each first in the list's order.
    static var examples: [String] { get }
    /// Whether a 16-pixel preview of the output shows it too (`POST /v1/plan`'s `previews`):
    /// true for what acts on each pixel alone or turns the image; false for what is measured in
    /// output pixels (a blur radius, a corner), which a preview would show many times too strong.
    /// Default true.
    static var previewed: Bool { get }
    /// Reads the argument text (what is inside the parentheses).
    /// - Throws: `PlanningError.invalidOption` naming the filter and what it takes.
    init(arguments: String) throws(PlanningError)
    /// The canonical argument text: reading it gives this effect again.
    var arguments: String { get }
    /// Kernel taps a pixel the effect convolves with, for `ImageLimits.maxFilterWork` (0 for an
    /// effect that is no convolution). Default 0.
    var taps: Int { get }
    /// The size a frame of `size` has once the effect is applied (its own, but for a quarter
    /// turn). Default: `size`.
    func outputSize(of size: PixelSize) -> PixelSize
    /// The frame with the effect applied.
    /// - Throws: `ImagingError` when libvips fails.
    func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage
}

extension Effect {
    public static var previewed: Bool { true }
    public func outputSize(of size: PixelSize) -> PixelSize { size }
    public var taps: Int { 0 }
}

/// Every effect, in the order the documentation lists them.
public enum Effects {
    /// The effects a request can name.
    public static let all: [any Effect.Type] = [
        Brightness.self, Contrast.self, Saturation.self, RGBShift.self, Grayscale.self, Equalize.self, Colorize.self, Hue.self, Curve.self,
        Noise.self, Blur.self, Sharpen.self, Convolution.self, RoundCorner.self, Label.self, Rotate.self, OutputCrop.self, BackgroundColor.self,
    ]

    /// The effect with this URL filter name, or nil.
    public static func named(_ name: String) -> (any Effect.Type)? { all.first { $0.name == name } }
}

/// One effect as a request gives it: equal, hashed and encoded (in result keys) by its name and
/// canonical arguments.
public struct AppliedEffect: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// The effect.
    public let effect: any Effect

    /// Wraps an effect.
    public init(_ effect: any Effect) { self.effect = effect }

    /// Its URL filter's name.
    public var name: String { type(of: effect).name }
    /// `name(arguments)`, canonical.
    public var description: String { "\(name)(\(effect.arguments))" }

    public static func == (a: AppliedEffect, b: AppliedEffect) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension [AppliedEffect] {
    /// Sets `effect`: in place of one of the same name, else at the end (so a URL's order is kept).
    public mutating func set(_ effect: any Effect) {
        let applied = AppliedEffect(effect)
        if let index = firstIndex(where: { $0.name == applied.name }) {
            self[index] = applied
        } else {
            append(applied)
        }
    }

    /// Kernel taps a pixel all the effects convolve with.
    public var taps: Int { reduce(0) { $0 + $1.effect.taps } }

    /// The size a frame of `size` has once the effects are applied.
    public func outputSize(of size: PixelSize) -> PixelSize { reduce(size) { $1.effect.outputSize(of: $0) } }

    /// The effects applied to one frame, in order.
    /// - Throws: `ImagingError` when libvips fails.
    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        var image = image
        for applied in self { image = try applied.effect.apply(to: image) }
        return image
    }
}
