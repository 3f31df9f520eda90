public import FocalCore

/// The comma-separated arguments of one effect, read in thumbor's grammar: whole numbers
/// (`-?[0-9]+`), decimals, booleans (`true`, `True`, `1`, `false`, `False`, `0`) and colours, each
/// checked against its range so that no argument can make an effect unbounded. Every error names
/// the filter and what it takes.
public struct EffectArguments {
    let filter: String
    let takes: String
    let parts: [String]

    /// Splits `text` for the filter `filter`, which takes `takes` (for errors), between `counts`
    /// arguments.
    /// - Throws: `PlanningError.invalidOption` when the count is outside `counts`.
    public init(_ text: String, filter: String, takes: String, counts: ClosedRange<Int>) throws(PlanningError) {
        self.filter = filter
        self.takes = takes
        let trimmed = text.trimmingSpaces
        parts = trimmed.isEmpty ? [] : trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard counts.contains(parts.count) else { throw refusal(trimmed.isEmpty ? "no arguments" : "'\(trimmed)'") }
    }

    /// Checks that an effect that takes no arguments was given none (in a URL `name()`; elsewhere
    /// also `on` or `true`).
    /// - Throws: `PlanningError.invalidOption` naming the filter.
    public static func none(_ text: String, filter: String, takes: String) throws(PlanningError) {
        let value = text.trimmingSpaces.lowercased()
        guard value.isEmpty || value == "on" || value == "true" else {
            throw PlanningError.invalidOption("\(filter)(…) was given '\(value)'; it takes \(takes)")
        }
    }

    /// How many arguments were given.
    public var count: Int { parts.count }

    /// The error for a bad argument.
    public func refusal(_ what: String) -> PlanningError {
        // Named as a URL writes it, and as the other doors do when that differs (`round-corner`).
        let door = String(filter.map { $0 == "_" ? "-" : $0 })
        return PlanningError.invalidOption("\(filter)(…)\(door == filter ? "" : " (\(door))") was given \(what); it takes \(takes)")
    }

    /// Argument `index` as a whole number in `range`, or `fallback` when it was not given.
    public func integer(_ index: Int, in range: ClosedRange<Int>, or fallback: Int? = nil) throws(PlanningError) -> Int {
        guard index < parts.count else {
            guard let fallback else { throw refusal("too few arguments") }
            return fallback
        }
        let text = parts[index]
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        // As many digits as the range's widest end has (`Int` refuses what overflows it).
        let most = String(max(range.lowerBound.magnitude, range.upperBound.magnitude)).count
        guard !digits.isEmpty, digits.count <= most, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(text), range.contains(value) else {
            throw refusal("'\(text)' (a whole number from \(range.lowerBound) to \(range.upperBound) goes there)")
        }
        return value
    }

    /// Argument `index` as a whole number of at most 9 digits, brought into `range` (thumbor
    /// takes any number there and the effect saturates past the range's ends), or `fallback`
    /// when it was not given. The effect prints the clamped value: a URL with another is
    /// redirected to it.
    public func integer(_ index: Int, clampedTo range: ClosedRange<Int>, or fallback: Int? = nil) throws(PlanningError) -> Int {
        guard index < parts.count else { return try integer(index, in: range, or: fallback) }
        let text = parts[index]
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(text) else {
            throw refusal("'\(text)' (a whole number goes there; \(range.lowerBound) to \(range.upperBound) tell apart)")
        }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// Argument `index` as a decimal of at most 12 characters, brought into `range`, or
    /// `fallback` when it was not given (as `integer(_:clampedTo:or:)`).
    public func decimal(_ index: Int, clampedTo range: ClosedRange<Double>, or fallback: Double? = nil) throws(PlanningError) -> Double {
        guard index < parts.count else { return try decimal(index, in: range, or: fallback) }
        let text = parts[index]
        guard text.count <= 12, !text.contains("e"), !text.contains("E"), !text.contains("+"), let value = Double(canonicalNumber: text) else {
            throw refusal("'\(text)' (a number goes there; \(range.lowerBound.canonicalText) to \(range.upperBound.canonicalText) tell apart)")
        }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// Argument `index` as a decimal in `range`, or `fallback` when it was not given.
    public func decimal(_ index: Int, in range: ClosedRange<Double>, or fallback: Double? = nil) throws(PlanningError) -> Double {
        guard index < parts.count else {
            guard let fallback else { throw refusal("too few arguments") }
            return fallback
        }
        let text = parts[index]
        guard !text.contains("e"), !text.contains("E"), !text.contains("+"), let value = Double(canonicalNumber: text), range.contains(value) else {
            throw refusal("'\(text)' (a number from \(range.lowerBound.canonicalText) to \(range.upperBound.canonicalText) goes there)")
        }
        return value
    }

    /// Argument `index` as a boolean, or `fallback` when it was not given.
    public func boolean(_ index: Int, or fallback: Bool) throws(PlanningError) -> Bool {
        guard index < parts.count else { return fallback }
        switch parts[index] {
        case "true", "True", "1": return true
        case "false", "False", "0": return false
        default: throw refusal("'\(parts[index])' (true or false goes there)")
        }
    }

    /// Argument `index` as a colour (`RGBColour(text:)`).
    public func colour(_ index: Int) throws(PlanningError) -> RGBColour {
        guard index < parts.count else { throw refusal("too few arguments") }
        guard let colour = RGBColour(text: parts[index]) else {
            throw refusal("'\(parts[index])' (a colour such as ff0000 or red goes there)")
        }
        return colour
    }

    /// Argument `index` as text, or nil when it was not given.
    public func text(_ index: Int) -> String? { index < parts.count ? parts[index] : nil }
}
