/// Which kinds of subject a crop may be built around, and in which order (`filters:kinds(…)`,
/// `--kinds`): like imgproxy's object gravity or Cloudinary's `g_auto:faces`.
///
/// Written as kinds joined by `+`, the first preferred: `face` (faces only), `pet+face` (cats and
/// dogs before faces), `face+saliency` (faces, else the salient region), `truck` (any class of the
/// object detector, `COCOClasses`). A kind not named does not count, so `face` alone crops a photo
/// without a face at the centre. Or as kinds to leave out, each after `no-` (or `-`): `no-person`
/// (every kind a default crop uses but people, in the usual order). `pet` names cats and dogs at
/// one rank; plurals are read too (`faces`, `people`).
///
/// With weights (`face:2+dog:1`, imgproxy's `objw`), every kind named counts at once, and a crop
/// that cannot keep all of them keeps the most weight: each subject weighs its kind's weight
/// times its size and confidence. A kind written without a weight there weighs 1.
public struct SubjectPreference: Hashable, Sendable, Codable {
    /// The kinds that count as written, the preferred first, each rank a set (`pet` is cats and
    /// dogs); nil when the preference only leaves kinds out.
    public var ranks: [[SubjectKind]]?
    /// The kinds left out.
    public var excluded: [SubjectKind]
    /// Each rank's weight, in the order of `ranks`, when the preference gives weights: then every
    /// kind named counts at one rank. Nil for an ordered preference.
    public var weights: [Double]?

    /// The kinds a preference may name (`pet` aside): the default crop's, then the object
    /// detector's other classes.
    public static let nameable: [SubjectKind] =
        [.face, .cat, .dog, .person, .saliency] + COCOClasses.kinds.filter { ![SubjectKind.person, .cat, .dog].contains($0) }

    /// The weights a kind may carry.
    public static let weightRange = 0.01...100.0

    /// Reads the written form.
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(text: String) throws(PlanningError) {
        let words = text.lowercased().split(separator: "+", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard !words.isEmpty, words.count <= 8 else { throw Self.invalid(text) }
        func isOut(_ word: String) -> Bool { word.hasPrefix("-") || word.hasPrefix("no-") }
        let negative = words.allSatisfy(isOut)
        guard negative || !words.contains(where: isOut) else {
            throw PlanningError.invalidOption("kinds '\(text)' either names kinds or leaves them out (no-person), not both")
        }
        let weighted = words.contains { $0.contains(":") }
        guard !(weighted && negative) else {
            throw PlanningError.invalidOption("kinds '\(text)' gives weights to kinds left out; weights go on kinds named (face:2+dog:1)")
        }
        var ranks: [[SubjectKind]] = [], weights: [Double] = []
        for word in words {
            var name = negative ? String(word.dropFirst(word.hasPrefix("no-") ? 3 : 1)) : word
            if weighted {
                let parts = name.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count <= 2 else { throw Self.invalid(text) }
                name = String(parts[0])
                weights.append(parts.count == 2 ? try Self.weight(String(parts[1]), in: text) : 1)
            }
            guard let kinds = Self.kinds(named: name) else { throw Self.invalid(text) }
            guard !ranks.contains(where: { !Set($0).isDisjoint(with: kinds) }) else {
                throw PlanningError.invalidOption("kinds '\(text)' names a kind twice")
            }
            ranks.append(kinds)
        }
        if negative {
            self.ranks = nil
            excluded = ranks.flatMap { $0 }
            self.weights = nil
        } else {
            self.ranks = ranks
            excluded = []
            self.weights = weighted ? weights : nil
        }
    }

    /// A weight as written: a number in `weightRange`, at most two decimals.
    private static func weight(_ written: String, in text: String) throws(PlanningError) -> Double {
        let digits = written.split(separator: ".", omittingEmptySubsequences: false)
        guard !written.isEmpty, written.count <= 8, digits.count <= 2, (digits.last?.count ?? 0) <= (digits.count == 2 ? 2 : 6),
            written.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(written), weightRange.contains(value)
        else {
            throw PlanningError.invalidOption("kinds '\(text)' has the weight '\(written.prefix(10))'; a weight is a number from 0.01 to 100 (face:2)")
        }
        return value
    }

    private static func invalid(_ text: String) -> PlanningError {
        PlanningError.invalidOption(
            "kinds '\(text.prefix(80))' must be kinds joined by + (\(SubjectKindNames.words(for: Array(nameable.prefix(5))).joined(separator: ", ")), or a class of the object detector such as truck, bicycle, horse: GET /v1/config lists them), the preferred first, each with a weight (face:2+dog:1) or none, or kinds to leave out (no-person)")
    }

    /// The kinds a word names (`SubjectKindNames`: `pet` is cats and dogs, plurals and `people`
    /// are read), when a preference may name them.
    static func kinds(named word: String) -> [SubjectKind]? {
        guard let kinds = SubjectKindNames.kinds(named: word), kinds.allSatisfy(nameable.contains) else { return nil }
        return kinds
    }

    /// The canonical written form: `pet+face`, `no-person`, `face:2+dog`.
    public var text: String {
        func name(_ rank: [SubjectKind]) -> String { SubjectKindNames.groupWord(for: rank) ?? rank.map(\.rawValue).joined(separator: "+") }
        if let ranks, let weights {
            return zip(ranks, weights).map { rank, weight in
                // Every kind of a group written with it carries its weight (`pet:2`).
                let each = SubjectKindNames.groupWord(for: rank).map { [$0] } ?? rank.map(\.rawValue)
                return each.map { $0 + ":" + Self.spelled(weight) }.joined(separator: "+")
            }.joined(separator: "+")
        }
        if let ranks { return ranks.map(name).joined(separator: "+") }
        return excluded.map { "no-" + $0.rawValue }.joined(separator: "+")
    }

    /// A weight as the canonical form writes it: `2`, `0.5`.
    static func spelled(_ weight: Double) -> String {
        let hundredths = Int(rounding: weight * 100, within: 1...10_000)
        let whole = hundredths / 100, rest = hundredths % 100
        return rest == 0 ? String(whole) : "\(whole)." + (rest % 10 == 0 ? String(rest / 10) : (rest < 10 ? "0" : "") + String(rest))
    }

    /// Where subjects of `kind` rank (lower first), or nil when they do not count. A head inferred
    /// from a person ranks with faces. With weights every kind named ranks first; a preference
    /// that only leaves kinds out counts only the default crop's kinds.
    public func rank(of kind: SubjectKind) -> Int? {
        let kind = kind == .head ? .face : kind
        if excluded.contains(kind) { return nil }
        guard let ranks else { return kind.traits.countsByDefault ? kind.priority : nil }
        guard let index = ranks.firstIndex(where: { $0.contains(kind) }) else { return nil }
        return weights == nil ? index : 0
    }

    /// The weight of subjects of `kind` (1 when the preference gives no weights or does not
    /// name it). A head weighs what a face does.
    public func weight(of kind: SubjectKind) -> Double {
        let kind = kind == .head ? .face : kind
        guard let ranks, let weights, let index = ranks.firstIndex(where: { $0.contains(kind) }), index < weights.count else { return 1 }
        return weights[index]
    }
}
