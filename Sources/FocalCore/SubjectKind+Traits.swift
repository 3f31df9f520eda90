/// How one kind of subject ranks and is shown: the one table the planner, the debug overlay, the
/// JSON documents and the web page read (`SubjectKind.traits`). A new kind is one case of
/// `SubjectKind` and one row here.
public struct SubjectKindTraits: Hashable, Sendable {
    /// The planner's priority group: lower goes first.
    public let priority: Int
    /// What a crop built around this kind is said to be.
    public let strategy: CropStrategy
    /// A person's word for it, as the page and overlays label it.
    public let label: String
    /// Its colour in overlays and on the page, `#rrggbb`.
    public let colour: String

    /// The colour as red, green and blue bytes (black when `colour` is not `#rrggbb`).
    public var rgb: (red: UInt8, green: UInt8, blue: UInt8) {
        let digits = colour.dropFirst()
        guard colour.hasPrefix("#"), digits.count == 6, let value = UInt32(digits, radix: 16) else { return (0, 0, 0) }
        return (UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
    }
}

extension SubjectKind {
    /// This kind's row of the table. Its JSON name is its raw value.
    public var traits: SubjectKindTraits {
        switch self {
        case .face: SubjectKindTraits(priority: 0, strategy: .faces, label: "Face", colour: "#22c55e")
        case .head: SubjectKindTraits(priority: 0, strategy: .faces, label: "Head", colour: "#86efac")
        case .cat: SubjectKindTraits(priority: 1, strategy: .pets, label: "Cat", colour: "#f59e0b")
        case .dog: SubjectKindTraits(priority: 1, strategy: .pets, label: "Dog", colour: "#ec4899")
        case .person: SubjectKindTraits(priority: 2, strategy: .people, label: "Person", colour: "#3b82f6")
        case .saliency: SubjectKindTraits(priority: 3, strategy: .saliency, label: "Salient", colour: "#eab308")
        }
    }

    /// The planner's priority group: lower goes first (`traits.priority`).
    public var priority: Int { traits.priority }
}
