public import FocalCore

/// `convolution(W;W;…,COLUMNS[,NORMALISE])`: the image convolved with a matrix of weights given
/// row by row, COLUMNS to a row (an odd number of odd rows and columns, at most 15 × 15), divided by
/// their sum when NORMALISE (default `true`) and the sum is not 0, edges extended, as thumbor's.
public struct Convolution: Effect {
    public static let name = "convolution"
    public static let values = "the weights joined by `;` row by row (each -1000 to 1000), the columns (odd, at most 15), then `true` or `false` (divide by their sum; default `true`)"
    public static let summary = "any convolution: `1;2;1;2;4;2;1;2;1,3,true` blurs, `0;-1;0;-1;5;-1;0;-1;0,3,false` sharpens"
    public static let examples = ["1;2;1;2;4;2;1;2;1,3,true", "0;-1;0;-1;5;-1;0;-1;0,3,false", "-1;0;1,3"]
    public static let previewed = false
    /// The weights, row by row.
    public let weights: [Double]
    /// Weights a row.
    public let columns: Int
    /// Whether the weights are divided by their sum.
    public let normalise: Bool

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 2...3)
        let texts = (given.text(0) ?? "").split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard texts.count <= 225 else { throw given.refusal("\(texts.count) weights (at most 225, 15 × 15)") }
        var weights: [Double] = []
        for text in texts {
            let one = try EffectArguments(text, filter: Self.name, takes: Self.values, counts: 1...1)
            weights.append(try one.decimal(0, in: -1000...1000))
        }
        columns = try given.integer(1, in: 1...15)
        normalise = try given.boolean(2, or: true)
        let rows = weights.count / columns
        guard weights.count % columns == 0, columns % 2 == 1, rows % 2 == 1, rows <= 15 else {
            throw given.refusal("\(weights.count) weights in rows of \(columns) (an odd number of odd rows is needed)")
        }
        self.weights = weights
    }

    public var arguments: String { weights.map(\.canonicalText).joined(separator: ";") + ",\(columns),\(normalise)" }

    public var taps: Int { weights.count }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let sum = weights.reduce(0, +)
        let used = normalise && sum != 0 ? weights.map { $0 / sum } : weights
        return try image.convolved(used, columns: columns)
    }
}
