public import FocalCore

/// `equalize()`: each channel's histogram spread over the whole range (histogram equalisation,
/// channel by channel, as thumbor's).
public struct Equalize: Effect {
    public static let name = "equalize"
    public static let values = "no arguments (in a URL `equalize()`; elsewhere `on`)"
    public static let summary = "stretches each channel's histogram over the full range"
    public static let examples = ["", "on"]

    public init(arguments: String) throws(PlanningError) { try EffectArguments.none(arguments, filter: Self.name, takes: Self.values) }

    public var arguments: String { "" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        try image.mappingPixels { pixels in
            var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
            pixels.bytes.withUnsafeBufferPointer { p in
                for i in 0..<p.count { histograms[i % 3][Int(p[i])] += 1 }
            }
            let area = pixels.width * pixels.height
            let tables = histograms.map { histogram -> [UInt8] in
                var cumulative = [Int](repeating: 0, count: 256), sum = 0
                for v in 0..<256 {
                    sum += histogram[v]
                    cumulative[v] = sum
                }
                let least = cumulative.first { $0 > 0 } ?? 0
                // A channel of one value has nothing to spread: it is kept.
                guard area > least else { return (0..<256).map { UInt8($0) } }
                return (0..<256).map { v in UInt8(clamping: Int(Float(cumulative[v] - least) / Float(area - least) * 255)) }
            }
            return pixels.lookingUp(red: tables[0], green: tables[1], blue: tables[2])
        }
    }
}
