/// Chooses the kind of subject a crop is built around.
///
/// 1. Subjects below their kind's minimum confidence, or with empty boxes, are dropped.
/// 2. A face whose centre lies inside a cat or dog box and inside no person box is the animal's
///    own face (face detectors fire on dogs): it does not count as a face.
/// 3. Faces come first, then cats and dogs, then people, then saliency; except that a cat or dog
///    at least `petDominance` times the area of the largest face is the subject of the photo
///    (a pet close up with someone far behind), so pets win.
/// 4. With faces come the heads inferred from people whose face was missed (`HeadInference`), so
///    that a crop that can keep every face and every such head does.
/// People never pull a crop away from a face: when a face was found, person boxes are not used.
public enum SubjectSelection {
    /// How many times larger than the largest face a pet must be to win over faces.
    public static let petDominance = 20.0

    /// The subjects of the winning kind.
    public static func choose(_ subjects: [Subject], minimumConfidence: [SubjectKind: Double] = [:]) -> [Subject] {
        let usable = subjects.filter {
            $0.box.width > 0 && $0.box.height > 0 && $0.confidence >= (minimumConfidence[$0.kind] ?? 0)
        }
        let pets = usable.filter { $0.kind == .cat || $0.kind == .dog }
        let people = usable.filter { $0.kind == .person }
        let faces = usable.filter { face in
            guard face.kind == .face else { return false }
            let (cx, cy) = (face.box.midX, face.box.midY)
            let onPet = pets.contains { $0.box.contains(x: cx, y: cy) }
            let onPerson = people.contains { $0.box.contains(x: cx, y: cy) }
            return !onPet || onPerson
        }
        let heads = usable.filter { $0.kind == .head }
        if !faces.isEmpty || !heads.isEmpty {
            let largestFace = (faces + heads).map(\.box.area).max() ?? 0
            let largestPet = pets.map(\.box.area).max() ?? 0
            if largestPet >= petDominance * largestFace { return pets }
            return faces + heads + HeadInference.heads(for: people, faces: faces + heads)
        }
        for group in [pets, people, usable.filter { $0.kind == .saliency }] where !group.isEmpty {
            return group
        }
        return []
    }
}
