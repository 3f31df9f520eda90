/// Subjects hidden in an output (`filters:redact(…)`, `redact_oval(…)`, `--redact`): which kinds,
/// how (blurred, pixelated or filled with a colour), how strongly, and in which shape.
public struct Redaction: Hashable, Sendable, Codable {
    /// How a region is hidden.
    public enum Style: Hashable, Sendable, Codable {
        /// A strong blur: `strength` is its radius in percent of the region's longer side.
        case blur
        /// Large blocks of the region's average colour: `strength` is the number of blocks across
        /// the region's longer side.
        case pixelate
        /// One colour, 8-bit red, green and blue.
        case fill(red: UInt8, green: UInt8, blue: UInt8)
    }

    /// The region's shape.
    public enum Shape: String, Hashable, Sendable, Codable {
        case rectangle, oval
    }

    /// How.
    public var style: Style
    /// How strongly (see `Style`); nil takes the style's default.
    public var strength: Int?
    /// The shape of each hidden region.
    public var shape: Shape
    /// The kinds hidden; default faces (and heads inferred from people).
    public var kinds: [SubjectKind]

    /// The kinds a redaction may name.
    public static let redactable: [SubjectKind] = [.face, .person, .cat, .dog] + COCOClasses.kinds.filter { ![SubjectKind.person, .cat, .dog].contains($0) }
    /// The strengths a redaction takes.
    public static let strengths = 1...100
    /// Default strengths: a blur radius of 25 % of the region, 5 blocks across it.
    public static let defaultBlur = 25, defaultBlocks = 5

    /// Creates a redaction; every parameter but the style defaults to the value on its property.
    public init(style: Style, strength: Int? = nil, shape: Shape = .rectangle, kinds: [SubjectKind] = [.face]) {
        self.style = style
        self.strength = strength
        self.shape = shape
        self.kinds = kinds
    }

    /// How far a subject's box is grown before it is hidden, as a fraction of its size on each
    /// side, for a box of `side` pixels (its longer side): detectors draw faces tight, and hair,
    /// ears and chin identify too. 0.3 for a box of 96 px or more, rising to 0.5 for one of 48 px
    /// or less: a small face hidden with a narrow margin keeps the outline of its head, which a
    /// detector still reads as a face (`make check-redaction` measured it). At least
    /// `minimumMargin` pixels.
    public static func margin(forSide side: Double) -> Double {
        let (small, large) = (48.0, 96.0)
        let share = min(1, max(0, (side - small) / (large - small)))
        return 0.5 - 0.2 * share
    }
    /// The least growth, in pixels of the image, on each side.
    public static let minimumMargin = 3.0
    /// The least score a face needs to be hidden: lower than a crop's (0.6), since a face missed
    /// is a leak and one hidden too many costs a few pixels.
    public static let faceThreshold = 0.45
    /// What a second look at a face only redaction's own passes found (`faceThreshold`, tiles)
    /// must score for it to be surely a face, hidden with its margin; from `uncertainScore` it is
    /// uncertain, hidden at its own size; below that it is not a face and stays as it is. The
    /// look is the fast face detector on the candidate and a box's width around it, its longer
    /// side scaled to each of `secondLookSides` pixels; its score is the second best of those
    /// looks, so that two scales agree. Measured on the development photos and both stress sets
    /// (`make check-redaction`): the fists, arms, fur, folds of cloth and edges the small-face
    /// pass took for faces score 0.25 at the median, real faces 0.78.
    public static let confirmedScore = 0.6, uncertainScore = 0.45
    /// The score from which a face the detection stages found is hidden without a second look;
    /// a weaker one gets a look like the extra passes' candidates (a tiny photo enlarged tenfold
    /// shows the detector a face at 0.6 in a pair of shorts). At 0.8, a real 12 px face at 0.75
    /// in an 84 px photo failed its look and was found again after redaction.
    public static let sureScore = 0.7
    /// The long side of the copy redaction's tiles are cut from, in accurate proxies: a larger
    /// photo is searched at less than its own scale (`make check-redaction --smallest`).
    public static let tileCopySides = 3
    /// The most second looks one image (or animation frame) gets; candidates past them are hidden
    /// as faces, with their margin, so a photo of a thousand face-like textures costs a bounded
    /// time and a crowd's 65th face keeps its hair and ears hidden.
    public static let mostSecondLooks = 64
    /// How many times larger than a candidate face the found face of a person it lies on (below
    /// that face) must be for the candidate to be taken for part of that person's body instead
    /// (`FindRedactions.isOnFacedPerson`): buttons and badges on a uniform score as faces.
    public static let facedPersonRatio = 3.0
    /// How far beyond a cat's or dog's box (a share of its size on every side) an uncertain
    /// candidate face that overlaps the box, on no person, is still taken for the animal's fur or
    /// paw: a detector cuts the box short (a cat's paw at the edge of a close-up).
    public static let petReach = 0.15
    /// How far below a person's sure face, in that face's heights, a much smaller candidate is
    /// still on the chest and taken for a button or a badge (`FindRedactions.isOnFacedPerson`).
    public static let torsoFaces = 3.0
    /// The most candidate faces on no person or pet of one image (or frame) that get an animal look
    /// (`FocalPipeline.animalsAround`): the object detector around the face.
    public static let mostAnimalLooks = 8
    /// The sides, in pixels, a second look scales a candidate face to.
    public static let secondLookSides = [32, 48, 64, 96]
    /// The least side, in pixels, of a pixelated block, and the least blur radius, for regions
    /// large enough to hold three of them: a face of a dozen pixels is otherwise cut into blocks of
    /// two or three, whose layout a detector still reads as a face. A smaller region gets three
    /// blocks (or a radius of a third of it).
    public static let minimumBlock = 8, minimumRadius = 8

    /// The side of a pixelated block for a region whose longer side is `side` pixels:
    /// `blocks` across it, each at least `minimumBlock` (or a third of the region, when smaller).
    public static func blockSide(forRegion side: Int, blocks: Int) -> Int {
        let across = max(1, blocks)
        return max(1, min(minimumBlock, (side + 2) / 3), (side + across - 1) / across)
    }

    /// The blur radius for a region whose longer side is `side` pixels: `percent` of it, at least
    /// `minimumRadius` (or a third of the region, when smaller).
    public static func blurRadius(forRegion side: Int, percent: Int) -> Int {
        max(1, min(minimumRadius, (side + 2) / 3), side * percent / 100)
    }

    /// Reads `blur`, `pixelate`, `RRGGBB` (or `#RRGGBB`, `black`, `white`), then optionally a
    /// strength, the kinds joined by `+` (`face+person`) and `oval`, comma-separated, in any order
    /// after the style: thumbor's and imagor's `redact(blur)`, `redact(pixelate,20)`,
    /// `redact(000000)` (their `redact_oval(…)` is `redact(…,oval)`).
    /// - Throws: `PlanningError.invalidOption` naming the part that is wrong.
    public init(text: String) throws(PlanningError) {
        let name = "redact"
        let parts: [String] = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces.lowercased() }
        guard let first = parts.first, !first.isEmpty, parts.count <= 4 else {
            throw PlanningError.invalidOption("\(name) '\(text)' must be blur, pixelate or a colour (RRGGBB), then a strength, kinds and oval")
        }
        let style: Style
        switch first {
        case "blur": style = .blur
        case "pixelate", "pixelation": style = .pixelate
        case "black": style = .fill(red: 0, green: 0, blue: 0)
        case "white": style = .fill(red: 255, green: 255, blue: 255)
        default:
            let hex = first.hasPrefix("#") ? String(first.dropFirst()) : first
            guard hex.utf8.count == 6, let value = UInt32(hex, radix: 16), hex.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
            else {
                throw PlanningError.invalidOption("\(name) '\(text)': '\(first)' is not blur, pixelate or a colour such as 000000")
            }
            style = .fill(red: UInt8((value >> 16) & 0xff), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
        }
        var strength: Int? = nil
        var kinds: [SubjectKind] = [.face]
        var shape = Shape.rectangle
        for part in parts.dropFirst() {
            if part == "oval" || part == "rectangle" {
                shape = part == "oval" ? .oval : .rectangle
            } else if let number = Int(part), part.utf8.allSatisfy({ (48...57).contains($0) }) {
                guard Self.strengths.contains(number) else {
                    throw PlanningError.invalidOption("\(name) strength '\(part)' must be a whole number from 1 to 100")
                }
                strength = number
            } else {
                // The words of every door (`SubjectKindNames`): `faces`, `pets`, `people`.
                let words = part.split(separator: "+").map { SubjectKindNames.kinds(named: String($0)) }
                let named = words.compactMap { $0 }.flatMap { $0 }
                guard !words.isEmpty, !words.contains(nil), named.allSatisfy(Self.redactable.contains), Set(named).count == named.count else {
                    throw PlanningError.invalidOption(
                        "\(name) kinds '\(part.prefix(80))' must be joined by + from \(SubjectKindNames.words(for: Array(Self.redactable.prefix(4))).joined(separator: ", ")) or a class of the object detector (car, bicycle, …: GET /v1/config lists them)")
                }
                kinds = named
            }
        }
        self.init(style: style, strength: strength, shape: shape, kinds: kinds)
    }

    /// The canonical text (`pixelate,12,face+person`): style, strength when set, kinds when not faces alone.
    public var text: String {
        var parts: [String]
        switch style {
        case .blur: parts = ["blur"]
        case .pixelate: parts = ["pixelate"]
        case let .fill(r, g, b): parts = [[r, g, b].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()]
        }
        if let strength { parts.append(String(strength)) }
        if kinds != [.face] { parts.append(kinds.map(\.rawValue).joined(separator: "+")) }
        if shape == .oval { parts.append("oval") }
        return parts.joined(separator: ",")
    }

    /// This redaction hiding `other`'s kinds too (a server's forced redaction over a URL's own):
    /// this one's style, strength and shape, the kinds of both.
    public func including(_ other: Redaction) -> Redaction {
        var both = self
        for kind in other.kinds where !both.kinds.contains(kind) { both.kinds.append(kind) }
        return both
    }

    /// `asked` (a request's own redaction) under `forced` (a server's): `asked` with `forced`'s
    /// kinds too, or `forced` where nothing was asked; `asked` when nothing is forced.
    public static func enforcing(_ forced: Redaction?, over asked: Redaction?) -> Redaction? {
        guard let forced else { return asked }
        return asked?.including(forced) ?? forced
    }

    /// Whether a subject of `kind` is hidden (a head inferred from a person is a face).
    public func hides(_ kind: SubjectKind) -> Bool { kinds.contains(kind) || (kind == .head && kinds.contains(.face)) }
}
