extension Int {
    /// `value` rounded to the nearest whole number and kept within `range`; NaN gives the range's
    /// lower bound. For coordinates and figures computed from input, which may not fit an `Int`:
    /// the value is bounded before it is converted, so nothing traps.
    package init(rounding value: Double, within range: ClosedRange<Int>) {
        guard !value.isNaN else {
            self = range.lowerBound
            return
        }
        let rounded = value.rounded()
        if rounded <= Double(range.lowerBound) {
            self = range.lowerBound
        } else if rounded >= Double(range.upperBound) {
            self = range.upperBound
        } else {
            // Strictly between two Ints and whole: exact. The fallback is never taken.
            self = Int(exactly: rounded) ?? range.lowerBound
        }
    }
}
