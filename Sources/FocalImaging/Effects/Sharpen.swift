public import FocalCore

/// `sharpen(AMOUNT,RADIUS,LUMINANCE_ONLY)`: an unsharp mask: each pixel moved AMOUNT times its
/// difference from a Gaussian blur of deviation RADIUS; with LUMINANCE_ONLY, the difference of
/// its luma, so colours do not fringe. (thumbor sharpens with GIMP's wavelet sharpen: the same
/// arguments, a similar look, not the same pixels.)
public struct Sharpen: Effect {
    public static let name = "sharpen"
    public static let values = "an amount from 0 to 10, a radius from 0 to 50 pixels, then `true` to sharpen luminance only (default `false`); one number alone is imagor's radius at amount 1"
    public static let summary = "an unsharp mask: edges crisper by the amount, over the radius"
    public static let examples = ["2,1,true", "1.5,0.5,false", "3,2"]
    public static let previewed = false
    /// How strongly, 0...10.
    public let amount: Double
    /// The blur's deviation, 0...50.
    public let radius: Double
    /// Whether only the luma is sharpened.
    public let luminanceOnly: Bool

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 1...3)
        // One argument is imagor's `sharpen(SIGMA)`: a radius at amount 1.
        amount = given.count == 1 ? 1 : try given.decimal(0, clampedTo: 0...10)
        radius = try given.decimal(given.count == 1 ? 0 : 1, clampedTo: 0...50)
        luminanceOnly = try given.boolean(2, or: false)
    }

    public var arguments: String { "\(amount.canonicalText),\(radius.canonicalText),\(luminanceOnly)" }

    /// The blur it subtracts: a separable kernel three radii long each way.
    public var taps: Int {
        guard amount > 0, radius > 0 else { return 0 }
        return 2 * (2 * Int(rounding: (3 * radius).rounded(.up), within: 1...150) + 1)
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        guard amount > 0, radius > 0 else { return image }
        let reach = Int(rounding: (3 * radius).rounded(.up), within: 1...150)
        let sharp = try image.pixels()
        let blurred = try RenderedImage(pixels: sharp).convolved(Blur.kernel(radius: reach, sigma: radius), columns: 2 * reach + 1, separable: true)
            .pixels()
        let amount = self.amount, luminanceOnly = self.luminanceOnly
        var out = sharp.bytes
        blurred.bytes.withUnsafeBufferPointer { soft in
            out.withUnsafeMutableBufferPointer { p in
                var i = 0
                while i + 2 < p.count {
                    if luminanceOnly {
                        let luma = 0.299 * Double(p[i]) + 0.587 * Double(p[i + 1]) + 0.114 * Double(p[i + 2])
                        let softLuma = 0.299 * Double(soft[i]) + 0.587 * Double(soft[i + 1]) + 0.114 * Double(soft[i + 2])
                        let delta = amount * (luma - softLuma)
                        for c in 0..<3 { p[i + c] = UInt8(clamping: Int((Double(p[i + c]) + delta).rounded())) }
                    } else {
                        for c in 0..<3 {
                            let value = Double(p[i + c]) + amount * (Double(p[i + c]) - Double(soft[i + c]))
                            p[i + c] = UInt8(clamping: Int(value.rounded()))
                        }
                    }
                    i += 3
                }
            }
        }
        return try RenderedImage(pixels: PixelBuffer(unchecked: sharp.width, height: sharp.height, bytes: out))
    }
}
