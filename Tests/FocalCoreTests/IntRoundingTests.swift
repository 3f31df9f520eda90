import Testing

@testable import FocalCore

/// `Int(rounding:within:)`, which every coordinate computed from input goes through (the planner's
/// crop and region, contact sheet cells): any Double, however large or not a number, lands inside
/// the range and never traps.
@Suite struct IntRoundingTests {
    static let extremes: [Double] = [
        .nan, -.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e300, -1e300,
        9.3e18, -9.3e18, Double(Int.max), Double(Int.min), .ulpOfOne, -0.0, 0.4999999, 0.5, 1.5, -0.5,
    ]

    @Test("values that do not fit an Int are clamped, NaN gives the lower bound", arguments: extremes)
    func extremeValuesStayInRange(value: Double) {
        for range in [0...100, -5...5, Int.min...Int.max, 1...1, 0...Int.max] {
            let result = Int(rounding: value, within: range)
            #expect(range.contains(result), "\(value) in \(range) gave \(result)")
            if value.isNaN { #expect(result == range.lowerBound) }
            if value == .infinity { #expect(result == range.upperBound) }
            if value == -.infinity { #expect(result == range.lowerBound) }
        }
    }

    @Test("values inside the range are rounded to the nearest whole number")
    func valuesInsideAreRounded() {
        #expect(Int(rounding: 41.6, within: 0...100) == 42)
        #expect(Int(rounding: -2.4, within: -5...5) == -2)
        #expect(Int(rounding: 2.5, within: 0...100) == 3)
        #expect(Int(rounding: 1e6, within: 0...100) == 100)
    }
}
