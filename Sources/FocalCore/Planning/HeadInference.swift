/// Heads that the face detector missed, inferred from people: a person box with no face in it is
/// evidence of a head at its top (a profile, a face turned away, a face too small or too dark).
public enum HeadInference {
    /// How much an inferred head weighs against a detected face: its confidence is the person's
    /// times this.
    public static let weight = 0.5

    /// One head for each person box that holds no face centre, at the top of the box.
    ///
    /// The head is about a fifth of a standing person's height or a third of a seated or
    /// upper-body person's width (whichever is larger, at most half the box), as tall as wide
    /// × 1.25, centred on the box horizontally and touching its top.
    /// - Parameters:
    ///   - people: Person subjects.
    ///   - faces: Face subjects; a person with a face centre inside it needs no inferred head.
    public static func heads(for people: [Subject], faces: [Subject]) -> [Subject] {
        people.compactMap { person -> Subject? in
            let box = person.box
            guard person.kind == .person, box.width > 0, box.height > 0 else { return nil }
            if faces.contains(where: { box.contains(x: $0.box.midX, y: $0.box.midY) }) { return nil }
            let height = min(max(0.18 * box.height, 0.35 * box.width), 0.5 * box.height)
            let width = min(box.width, height * 0.8)
            let head = Box(x: box.midX - width / 2, y: box.y, width: width, height: height)
            return Subject(kind: .head, box: head, confidence: person.confidence * weight)
        }
    }
}
