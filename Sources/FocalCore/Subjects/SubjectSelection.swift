/// Chooses the kind of subject a crop is built around.
///
/// 1. Subjects below their kind's minimum confidence, or with empty boxes, are dropped.
/// 2. Kinds rank by their row of the kind table (`SubjectKindTraits.priority`): faces and heads,
///    then cats and dogs, then people, then saliency; a library user's own kind where its row
///    puts it. The subjects of the first group present are chosen, as the named rules say:
///    - **a pet's own face** (`isPetsOwnFace`): a face whose centre lies inside a cat or dog
///      box and inside no person box is the animal's (face detectors fire on dogs): it does not
///      count as a face;
///    - **a dominant pet** (`petDominance`): a cat or dog at least 20 times the area of the
///      largest face is the subject of the photo (a pet close up with someone far behind), so
///      pets win over faces;
///    - **heads from people** (`HeadInference`): with faces come the heads inferred from people
///      whose face was missed, so that a crop that can keep every face and every such head does.
/// People never pull a crop away from a face: when a face was found, person boxes are not used.
public enum SubjectSelection {
    /// How many times larger than the largest face a pet must be to win over faces.
    public static let petDominance = 20.0

    /// The subjects of the winning kind.
    /// - Parameters:
    ///   - subjects: Everything detected.
    ///   - minimumConfidence: Per kind, the least confidence that counts; default none.
    ///   - preference: Which kinds count and in which order (`SubjectPreference`); default nil:
    ///     every kind a default crop counts (`SubjectKindTraits.countsByDefault`), in the table's order.
    public static func choose(
        _ subjects: [Subject], minimumConfidence: [SubjectKind: Double] = [:], preference: SubjectPreference? = nil
    ) -> [Subject] {
        let usable = subjects.filter {
            $0.box.width > 0 && $0.box.height > 0 && $0.confidence >= (minimumConfidence[$0.kind] ?? 0)
        }
        let pets = usable.filter { $0.kind.traits.strategy == .pets }
        let people = usable.filter { $0.kind == .person }
        let rank: (SubjectKind) -> Int? = { kind in
            guard let preference else { return kind.traits.countsByDefault ? kind.priority : nil }
            return preference.rank(of: kind)
        }
        let candidates = usable.filter { rank($0.kind) != nil && !isPetsOwnFace($0, pets: pets, people: people) }
        let groups = Dictionary(grouping: candidates) { rank($0.kind) ?? Int.max }
        guard let first = groups.keys.min(), let group = groups[first] else { return [] }
        // Detected faces before the rest of their group (heads), each in the order found.
        let chosen = group.filter { $0.kind == .face } + group.filter { $0.kind != .face }
        guard chosen.contains(where: { $0.kind.traits.strategy == .faces }) else { return chosen }
        // A dominant pet wins over faces only in the usual order, and only where pets count: an
        // order that puts faces first means it.
        let counted = pets.filter { rank($0.kind) != nil }
        if preference?.ranks == nil, isDominantPet(counted, over: chosen) { return counted }
        return chosen + HeadInference.heads(for: people, faces: chosen)
    }

    /// A pet's own face: a face whose centre lies inside a cat or dog box and inside no person box.
    public static func isPetsOwnFace(_ subject: Subject, pets: [Subject], people: [Subject]) -> Bool {
        guard subject.kind == .face else { return false }
        let (cx, cy) = (subject.box.midX, subject.box.midY)
        return pets.contains { $0.box.contains(x: cx, y: cy) } && !people.contains { $0.box.contains(x: cx, y: cy) }
    }

    /// A dominant pet: the largest cat or dog at least `petDominance` times the largest face.
    public static func isDominantPet(_ pets: [Subject], over faces: [Subject]) -> Bool {
        guard let largestPet = pets.map(\.box.area).max() else { return false }
        let largestFace = faces.map(\.box.area).max() ?? 0
        return largestPet >= petDominance * largestFace
    }
}
