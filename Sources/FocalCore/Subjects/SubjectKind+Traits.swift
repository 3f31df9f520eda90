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
    /// Whether it counts in a crop that names no kinds: faces, pets, people and saliency do;
    /// the object detector's other classes count only when a request names them.
    public let countsByDefault: Bool

    /// Creates a row.
    /// - Parameter countsByDefault: Whether a crop that names no kinds uses it; default true.
    public init(kind: SubjectKind, priority: Int, strategy: CropStrategy, label: String, colour: String, countsByDefault: Bool = true) {
        self.kind = kind
        self.priority = priority
        self.strategy = strategy
        self.label = label
        self.colour = colour
        self.countsByDefault = countsByDefault
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
    ] + objectRows

    /// The rows of the object detector's other classes (`COCOClasses`): counted when named, each
    /// in a colour of its own (hues a golden angle apart, at two lightnesses).
    static let objectRows: [SubjectKindTraits] = COCOClasses.kinds.enumerated().compactMap { index, kind in
        guard ![SubjectKind.person, .cat, .dog].contains(kind) else { return nil }
        let words = String(kind.rawValue.map { $0 == "_" ? " " : $0 })
        let hue = (Double(index) * 137.508).truncatingRemainder(dividingBy: 360)
        return SubjectKindTraits(
            kind: kind, priority: 2, strategy: .objects, label: words.prefix(1).uppercased() + words.dropFirst(),
            colour: hexColour(hue: hue, saturation: 0.62, lightness: index % 2 == 0 ? 0.46 : 0.58), countsByDefault: false)
    }

    /// `#rrggbb` of a colour given as hue (degrees), saturation and lightness (0 to 1).
    static func hexColour(hue: Double, saturation: Double, lightness: Double) -> String {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue / 60
        let x = chroma * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch h {
            case ..<1: (chroma, x, 0)
            case ..<2: (x, chroma, 0)
            case ..<3: (0, chroma, x)
            case ..<4: (0, x, chroma)
            case ..<5: (x, 0, chroma)
            default: (chroma, 0, x)
            }
        let m = lightness - chroma / 2
        let digits = Array("0123456789abcdef")
        return "#" + [r, g, b].map { channel in
            let byte = Int(rounding: (channel + m) * 255, within: 0...255)
            return String([digits[byte / 16], digits[byte % 16]])
        }.joined()
    }

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
