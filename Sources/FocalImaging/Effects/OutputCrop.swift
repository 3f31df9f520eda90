public import FocalCore

/// `output_crop(LEFT,TOP,WIDTH,HEIGHT)`, imagor's `crop(…)` (a URL's `crop(…)` is redirected to
/// it): a part of the output, cut after the resize, in pixels or (each value with a decimal
/// point) in fractions of the output. A box reaching past the output is cut at its edge.
public struct OutputCrop: Effect {
    public static let name = "output_crop"
    public static let values =
        "left, top, width and height in pixels of the output (whole numbers up to 100000), or all four in fractions of it (0 to 1, such as 0.1)"
    public static let summary = "cuts a part of the output, after the resize (imagor's)"
    public static let examples = ["0.1,0.1,0.8,0.8", "10,20,200,150"]
    public static let previewed = false
    /// Left, top, width and height.
    public let box: (left: Double, top: Double, width: Double, height: Double)
    /// Whether `box` is in fractions of the output.
    public let fractions: Bool

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 4...4)
        fractions = (0..<4).allSatisfy { (given.text($0) ?? "").contains(".") }
        let range: ClosedRange<Double> = fractions ? 0...1 : 0...100_000
        let values = try (0..<4).map { index throws(PlanningError) in try given.decimal(index, in: range) }
        guard fractions || values.allSatisfy({ $0 == $0.rounded() }) else { throw given.refusal("'\(arguments)' (whole pixels, or all four in fractions)") }
        guard values[2] > 0, values[3] > 0 else { throw given.refusal("'\(arguments)' (a width and a height over 0)") }
        box = (values[0], values[1], values[2], values[3])
    }

    public var arguments: String {
        [box.left, box.top, box.width, box.height].map { fractions ? $0.canonicalText : String(Int(rounding: $0, within: 0...100_000)) }
            .joined(separator: ",")
    }

    /// The part of an output of `size` it keeps, at least 1 × 1.
    func rect(in size: PixelSize) -> PixelRect {
        let (sx, sy) = fractions ? (Double(size.width), Double(size.height)) : (1, 1)
        let x = min(max(0, Int(rounding: (box.left * sx).rounded(), within: 0...size.width)), size.width - 1)
        let y = min(max(0, Int(rounding: (box.top * sy).rounded(), within: 0...size.height)), size.height - 1)
        let width = min(max(1, Int(rounding: (box.width * sx).rounded(), within: 1...100_000)), size.width - x)
        let height = min(max(1, Int(rounding: (box.height * sy).rounded(), within: 1...100_000)), size.height - y)
        return PixelRect(x: x, y: y, width: width, height: height)
    }

    public func outputSize(of size: PixelSize) -> PixelSize {
        let r = rect(in: size)
        return PixelSize(width: r.width, height: r.height)
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let r = rect(in: image.size)
        guard r.width != image.size.width || r.height != image.size.height else { return image }
        return try image.cropped(r, to: PixelSize(width: r.width, height: r.height))
    }
}
