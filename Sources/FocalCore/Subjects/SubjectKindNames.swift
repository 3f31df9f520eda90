/// The words that name kinds of subject: one vocabulary for every door that takes kinds (the
/// `kinds(…)` and `redact(…)` filters, `--kinds` and `--redact`, `<focal-img kinds>`, the JSON API)
/// and for `/v1/config`, which lists it.
///
/// A word is a kind's own name (`face`, `cat`, `dog`, `person`, `saliency`, one of the object
/// detector's classes such as `truck` or `traffic_light` (`COCOClasses`), or a kind a library
/// user registered with `SubjectKindTraits.register`), that name with an `s` (`faces`, `cats`),
/// another word for a class (`motorcycle`, `couch`, `tv`), or a group's name (`pet` and `pets`:
/// cats and dogs; `people`: persons; `salient`: the salient region). Case is ignored. What a door accepts of it is its own list (`SubjectPreference.nameable`,
/// `Redaction.redactable`), but a word means the same at every door.
public enum SubjectKindNames {
    /// A name for several kinds at once, or another word for one.
    public struct Group: Hashable, Sendable {
        /// Its words, the canonical one first.
        public let words: [String]
        /// The kinds it names.
        public let kinds: [SubjectKind]
    }

    /// The groups: `pet` (cats and dogs), `people` (persons), `salient` (the salient region).
    public static let groups: [Group] = [
        Group(words: ["pet", "pets"], kinds: [.cat, .dog]),
        Group(words: ["people"], kinds: [.person]),
        Group(words: ["salient"], kinds: [.saliency]),
    ]

    /// The kinds `word` names, or nil when it names none.
    public static func kinds(named word: String) -> [SubjectKind]? {
        var word = word.lowercased()
        if let name = COCOClasses.synonyms[word] { word = name }
        if let group = groups.first(where: { $0.words.contains(word) }) { return group.kinds }
        for row in SubjectKindTraits.all where row.kind.rawValue == word || row.kind.rawValue + "s" == word {
            return [row.kind]
        }
        return nil
    }

    /// The canonical word for `kinds` when a group names exactly them (`pet` for cats and dogs),
    /// else nil.
    public static func groupWord(for kinds: [SubjectKind]) -> String? {
        groups.first { Set($0.kinds) == Set(kinds) && $0.kinds.count > 1 && kinds.count == $0.kinds.count }?.words.first
    }

    /// The words a door that takes `kinds` accepts, for messages and documents: each kind's
    /// name, then each group whose kinds it takes (`face, cat, dog, person, pet, people`).
    public static func words(for kinds: [SubjectKind]) -> [String] {
        kinds.map(\.rawValue) + groups.filter { $0.kinds.allSatisfy(kinds.contains) }.map { $0.words[0] }
    }
}
