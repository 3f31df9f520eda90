import Synchronization

/// How one kind of subject ranks and is shown: one row of the table the planner, the selection,
/// the debug overlay, the JSON documents and the web page read (`SubjectKind.traits`). A new
/// built-in kind is one row in `builtIn`; a library user's own kind is registered (`register`).
public struct SubjectKindTraits: Hashable, Sendable {
    /// The kind this row is for.
    public let kind: SubjectKind
    /// The planner's priority group: lower goes first.
    public let priority: Int
    /// What a crop built around this kind is said to be.
    public let strategy: CropStrategy
    /// A person's word for it, as the page and overlays label it.
    public let label: String
    /// Its colour in overlays and on the page, `#rrggbb`.
    public let colour: String

    /// Creates a row.
    public init(kind: SubjectKind, priority: Int, strategy: CropStrategy, label: String, colour: String) {
        self.kind = kind
        self.priority = priority
        self.strategy = strategy
        self.label = label
        self.colour = colour
    }

    /// The colour as red, green and blue bytes (black when `colour` is not `#rrggbb`).
    public var rgb: (red: UInt8, green: UInt8, blue: UInt8) {
        let digits = colour.dropFirst()
        guard colour.hasPrefix("#"), digits.count == 6, let value = UInt32(digits, radix: 16) else { return (0, 0, 0) }
        return (UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
    }

    /// The built-in kinds' rows.
    public static let builtIn: [SubjectKindTraits] = [
        SubjectKindTraits(kind: .face, priority: 0, strategy: .faces, label: "Face", colour: "#22c55e"),
        SubjectKindTraits(kind: .head, priority: 0, strategy: .faces, label: "Head", colour: "#86efac"),
        SubjectKindTraits(kind: .cat, priority: 1, strategy: .pets, label: "Cat", colour: "#f59e0b"),
        SubjectKindTraits(kind: .dog, priority: 1, strategy: .pets, label: "Dog", colour: "#ec4899"),
        SubjectKindTraits(kind: .person, priority: 2, strategy: .people, label: "Person", colour: "#3b82f6"),
        SubjectKindTraits(kind: .saliency, priority: 3, strategy: .saliency, label: "Salient", colour: "#eab308"),
    ]

    private static let registered = Mutex<[SubjectKindTraits]>([])

    /// Adds (or replaces) the row of a kind of a library user's own, so that the planner ranks it
    /// and the overlays show it; a built-in kind's row cannot be replaced.
    public static func register(_ traits: SubjectKindTraits) {
        guard !builtIn.contains(where: { $0.kind == traits.kind }) else { return }
        registered.withLock { rows in
            rows.removeAll { $0.kind == traits.kind }
            rows.append(traits)
        }
    }

    /// Every row: the built-in ones, then the registered ones.
    public static var all: [SubjectKindTraits] { builtIn + registered.withLock { $0 } }

    /// The row of `kind`; a kind with none ranks after every other and is shown grey.
    static func row(_ kind: SubjectKind) -> SubjectKindTraits {
        if let row = builtIn.first(where: { $0.kind == kind }) { return row }
        return registered.withLock { rows in rows.first { $0.kind == kind } }
            ?? SubjectKindTraits(kind: kind, priority: 100, strategy: CropStrategy(rawValue: kind.rawValue), label: kind.rawValue, colour: "#9ca3af")
    }
}

extension SubjectKind {
    /// This kind's row of the table. Its JSON name is its raw value.
    public var traits: SubjectKindTraits { SubjectKindTraits.row(self) }

    /// The planner's priority group: lower goes first (`traits.priority`).
    public var priority: Int { traits.priority }
}
