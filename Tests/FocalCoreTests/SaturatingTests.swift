import FocalCore
import Testing

/// `Int(saturating:)`: the conversion of computed coordinates that never traps.
@Suite struct SaturatingTests {
    @Test(arguments: [
        (0.0, 0), (41.9, 41), (-41.9, -41), (Double.nan, 0), (Double.infinity, Int.max), (-Double.infinity, Int.min),
        (1e300, Int.max), (-1e300, Int.min), (9_223_372_036_854_775_807.0, Int.max), (-9_223_372_036_854_775_808.0, Int.min),
    ])
    func convertsWithoutTrapping(value: Double, expected: Int) {
        #expect(Int(saturating: value) == expected)
    }
}
