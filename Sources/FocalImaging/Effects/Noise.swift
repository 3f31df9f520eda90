public import FocalCore

/// `noise(N[,SEED])`: adds the same random amount (within ±N/2) to the three channels of each
/// pixel, as thumbor's does. The noise is the same for the same seed on every replica and every
/// run (one URL, one set of bytes), not thumbor's own sequence.
public struct Noise: Effect {
    public static let name = "noise"
    public static let values = "a whole number from 0 to 510 (the spread, in levels of 255), then optionally a seed (0 to 2147483647; default 0)"
    public static let summary = "film grain: each pixel lightened or darkened by up to half the spread"
    public static let examples = ["20", "40,7"]
    public static let previewed = false
    /// The spread, 0...510.
    public let amount: Int
    /// The random sequence's seed.
    public let seed: Int

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...2)
        amount = try given.integer(0, clampedTo: 0...510)
        seed = try given.integer(1, in: 0...2_147_483_647, or: 0)
    }

    public var arguments: String { seed == 0 ? String(amount) : "\(amount),\(seed)" }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        guard amount > 0 else { return image }
        var state = UInt64(seed) &+ 0x9E37_79B9_7F4A_7C15
        let (spread, half) = (UInt64(amount), amount >> 1)
        return try image.mappingPixels { pixels in
            pixels.mappingEachPixel { r, g, b in
                // SplitMix64: a small, fast generator whose sequence depends only on the seed.
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                let delta = Int(z % spread) - half
                r += delta
                g += delta
                b += delta
            }
        }
    }
}
