import Foundation

/// A finished crop: the encoded bytes and the plan behind them.
public struct CropResult: Sendable {
    /// The encoded output.
    public var data: Data
    /// The output's encoding.
    public var format: ImageFormat
    /// Where the crop is and why.
    public var plan: CropPlan
    /// Every subject detected, used or not.
    public var detected: [Subject]
}
