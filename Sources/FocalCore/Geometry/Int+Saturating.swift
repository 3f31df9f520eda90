extension Int {
    /// `value` as an `Int`, truncated toward zero, that never traps: NaN gives 0, and a value
    /// beyond `Int`'s range gives `Int.min` or `Int.max`. Round first when rounding is wanted.
    /// For coordinates computed from input, which may not fit.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 9_223_372_036_854_775_807.0 {  // 2^63, the first Double past Int.max
            self = .max
        } else if value <= -9_223_372_036_854_775_808.0 {
            self = .min
        } else {
            self = Int(exactly: value.rounded(.towardZero)) ?? 0
        }
    }
}
