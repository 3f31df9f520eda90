public import FocalCore

/// `grayscale()`: every pixel its luma (ITU-R 601: 0.299 R + 0.587 G + 0.114 B, as PIL's and so
/// thumbor's conversion), kept in three equal channels.
public struct Grayscale: Effect {
    public static let name = "grayscale"
    public static let values = "no arguments (in a URL `grayscale()`; elsewhere `on`)"
    public static let summary = "black and white"
    public static let examples = ["", "on"]

    public init(arguments: String) throws(PlanningError) { try EffectArguments.none(arguments, filter: Self.name, takes: Self.values) }

    public var arguments: String { "" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        try image.mappingPixels { pixels in
            pixels.mappingEachPixel { r, g, b in
                let luma = (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16
                (r, g, b) = (luma, luma, luma)
            }
        }
    }
}
