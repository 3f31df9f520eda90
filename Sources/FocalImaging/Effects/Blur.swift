public import Foundation
public import FocalCore

/// `blur(RADIUS[,SIGMA])`: a Gaussian blur, as thumbor's: a kernel of 2 × RADIUS + 1 weights of
/// deviation SIGMA (default RADIUS), applied across and then down, edges extended.
public struct Blur: Effect {
    public static let name = "blur"
    public static let values = "a radius from 1 to 150 pixels, then optionally a deviation from 0 to 150 (default: the radius); more is 150, as in thumbor (a URL's blur(0) does nothing)"
    public static let summary = "a Gaussian blur of that radius"
    public static let examples = ["4", "8,3", "2,0"]
    public static let previewed = false
    /// The kernel's radius in pixels, 1...150 (thumbor's greatest).
    public let radius: Int
    /// The deviation; 0 means the radius.
    public let sigma: Double

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...2)
        radius = try given.integer(0, clampedTo: 1...150)
        sigma = try given.decimal(1, clampedTo: 0...150, or: 0)
    }

    public var arguments: String { sigma == 0 ? String(radius) : "\(radius),\(sigma.canonicalText)" }

    /// A separable kernel: a row, then a column.
    public var taps: Int { radius > 0 ? 2 * (2 * radius + 1) : 0 }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        try image.convolved(Self.kernel(radius: radius, sigma: sigma == 0 ? Double(radius) : sigma), columns: 2 * radius + 1, separable: true)
    }

    /// Thumbor's one-dimensional Gaussian kernel of `radius`, normalised to sum 1.
    static func kernel(radius: Int, sigma: Double) -> [Double] {
        let twoSigmaSquared = 2 * sigma * sigma
        let weights = (-radius...radius).map { x in exp(-Double(x * x) / twoSigmaSquared) / (twoSigmaSquared * .pi).squareRoot() }
        let sum = weights.reduce(0, +)
        return sum > 0 ? weights.map { $0 / sum } : weights
    }
}
