import Focal

extension Int {
    /// `value` rounded to the nearest whole number and kept within `range`; NaN gives the range's
    /// lower bound. For coordinates and figures computed from input, which may not fit an `Int`.
    init(rounding value: Double, within range: ClosedRange<Int>) {
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
            self = Int(saturating: rounded)
        }
    }
}
