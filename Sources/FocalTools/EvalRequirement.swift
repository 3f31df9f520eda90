public import Focal
import Foundation

/// One quality floor or ceiling on a figure of `focal eval`, written `name OP number`:
/// `all_kept>=0.97`, `false_pets==0`, `ms_per_image<400`.
///
/// `name` is a key of the object `focal eval --json` prints; `OP` is one of `>=`, `<=`, `==`, `>`
/// and `<`. Figures are ratios and counts held as `Double`, so a value within a billionth (relative)
/// of the bound counts as equal to it: `pet_kept>=0.80` is met by 24/30 however the division
/// rounded, and `pet_kept>0.80` is not.
public struct EvalRequirement: Sendable, Hashable, CustomStringConvertible {
    /// How a figure is compared with the bound.
    public enum Comparison: String, Sendable, CaseIterable {
        case atLeast = ">="
        case atMost = "<="
        case equal = "=="
        case greater = ">"
        case less = "<"
    }

    /// The figure's name, a key of `focal eval --json`.
    public var name: String
    /// The comparison.
    public var comparison: Comparison
    /// The number the figure is compared with.
    public var bound: Double

    /// Creates a requirement from its parts.
    public init(name: String, comparison: Comparison, bound: Double) {
        self.name = name
        self.comparison = comparison
        self.bound = bound
    }

    /// Reads `name OP number` (spaces around the parts allowed).
    /// - Parameters:
    ///   - text: The requirement, e.g. `all_kept>=0.97`.
    ///   - known: The figure names accepted.
    /// - Throws: `EvalRequirement.ParseError` when the text is not `name OP number`, the number is
    ///   not finite, or the name is not in `known` (the message lists the known names).
    public init(parsing text: String, known: [String]) throws {
        let operatorCharacters: Set<Character> = ["<", ">", "="]
        guard let start = text.firstIndex(where: { operatorCharacters.contains($0) }) else {
            throw ParseError(text, "has no comparison; write NAME OP NUMBER with OP one of \(Self.operators), e.g. all_kept>=0.97 (quote the "
                    + "list: a shell reads > and < as redirections)")
        }
        let end = text[start...].firstIndex { !operatorCharacters.contains($0) } ?? text.endIndex
        let name = text[..<start].trimmingCharacters(in: .whitespaces)
        let number = text[end...].trimmingCharacters(in: .whitespaces)
        guard let comparison = Comparison(rawValue: String(text[start..<end])) else {
            throw ParseError(text, "has \"\(text[start..<end])\" where one of \(Self.operators) belongs")
        }
        guard !name.isEmpty else {
            throw ParseError(text, "names no figure before \(comparison.rawValue); known: \(known.sorted().joined(separator: ", "))")
        }
        guard let bound = Double(number), bound.isFinite else {
            throw ParseError(text, "needs a finite number after \(comparison.rawValue), e.g. 0.97 or 0")
        }
        guard known.contains(name) else {
            throw ParseError(text, "names an unknown figure \"\(name)\"; known: \(known.sorted().joined(separator: ", "))")
        }
        self.init(name: name, comparison: comparison, bound: bound)
    }

    /// Reads a comma-separated list of requirements, e.g. `all_kept>=0.97,false_pets==0`.
    /// - Throws: `EvalRequirement.ParseError` for the first item that does not read, or for a list
    ///   with no item.
    public static func list(parsing text: String, known: [String]) throws -> [EvalRequirement] {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard items.contains(where: { !$0.isEmpty }) else {
            throw ParseError(text, "holds no requirement; write NAME OP NUMBER[,NAME OP NUMBER...], e.g. all_kept>=0.97,errors==0")
        }
        return try items.map { item in
            guard !item.isEmpty else { throw ParseError(text, "has an empty item between commas") }
            return try EvalRequirement(parsing: item, known: known)
        }
    }

    /// Whether `value` meets the requirement; values within a billionth (relative) of the bound
    /// count as equal to it.
    public func isMet(by value: Double) -> Bool {
        guard value.isFinite else { return false }
        let equal = abs(value - bound) <= 1e-9 * max(1, abs(bound))
        switch comparison {
        case .atLeast: return equal || value > bound
        case .atMost: return equal || value < bound
        case .equal: return equal
        case .greater: return !equal && value > bound
        case .less: return !equal && value < bound
        }
    }

    /// `name OP bound`, e.g. `all_kept >= 0.97`.
    public var description: String { "\(name) \(comparison.rawValue) \(Self.text(bound))" }

    /// A number as short as it reads: `0`, `3`, `0.97`, `0.9848484848484849`.
    public static func text(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static let operators = Comparison.allCases.map(\.rawValue).joined(separator: ", ")
}
