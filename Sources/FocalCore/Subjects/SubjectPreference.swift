/// Which kinds of subject a crop may be built around, and in which order (`filters:kinds(…)`,
/// `--kinds`): like imgproxy's object gravity or Cloudinary's `g_auto:faces`.
///
/// Written as kinds joined by `+`, the first preferred: `face` (faces only), `pet+face` (cats and
/// dogs before faces), `face+saliency` (faces, else the salient region). A kind not named does not
/// count, so `face` alone crops a photo without a face at the centre. Or as kinds to leave out,
/// each after `no-` (or `-`): `no-person` (every kind but people, in the usual order). `pet` names
/// cats and dogs at one rank; plurals are read too (`faces`, `people`).
public struct SubjectPreference: Hashable, Sendable, Codable {
    /// The kinds that count, the preferred first, each rank a set (`pet` is cats and dogs); nil
    /// when the preference only leaves kinds out.
    public var ranks: [[SubjectKind]]?
    /// The kinds left out.
    public var excluded: [SubjectKind]

    /// The kinds a preference may name (`pet` aside).
    public static let nameable: [SubjectKind] = [.face, .cat, .dog, .person, .saliency]

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
        var ranks: [[SubjectKind]] = []
        for word in words {
            let name = negative ? String(word.dropFirst(word.hasPrefix("no-") ? 3 : 1)) : word
            guard let kinds = Self.kinds(named: name) else { throw Self.invalid(text) }
            guard !ranks.contains(where: { !Set($0).isDisjoint(with: kinds) }) else {
                throw PlanningError.invalidOption("kinds '\(text)' names a kind twice")
            }
            ranks.append(kinds)
        }
        if negative {
            self.ranks = nil
            excluded = ranks.flatMap { $0 }
        } else {
            self.ranks = ranks
            excluded = []
        }
    }

    private static func invalid(_ text: String) -> PlanningError {
        PlanningError.invalidOption(
            "kinds '\(text)' must be kinds joined by + (\(SubjectKindNames.words(for: nameable).joined(separator: ", "))), the preferred first, or kinds to leave out (no-person)")
    }

    /// The kinds a word names (`SubjectKindNames`: `pet` is cats and dogs, plurals and `people`
    /// are read), when a preference may name them.
    static func kinds(named word: String) -> [SubjectKind]? {
        guard let kinds = SubjectKindNames.kinds(named: word), kinds.allSatisfy(nameable.contains) else { return nil }
        return kinds
    }

    /// The canonical written form: `pet+face`, `no-person`.
    public var text: String {
        func name(_ rank: [SubjectKind]) -> String { SubjectKindNames.groupWord(for: rank) ?? rank.map(\.rawValue).joined(separator: "+") }
        if let ranks { return ranks.map(name).joined(separator: "+") }
        return excluded.map { "no-" + $0.rawValue }.joined(separator: "+")
    }

    /// Where subjects of `kind` rank (lower first), or nil when they do not count. A head inferred
    /// from a person ranks with faces.
    public func rank(of kind: SubjectKind) -> Int? {
        let kind = kind == .head ? .face : kind
        if excluded.contains(kind) { return nil }
        guard let ranks else { return kind.priority }
        return ranks.firstIndex { $0.contains(kind) }
    }
}
