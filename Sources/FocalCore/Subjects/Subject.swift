/// What a detector found: a kind by its JSON name. The built-in kinds are the static members;
/// a library user's detector may find kinds of its own (`SubjectKind(rawValue:)`), ranked and
/// shown by their row of the kind table (`SubjectKindTraits.register`).
public struct SubjectKind: RawRepresentable, Hashable, Sendable, Codable, CodingKeyRepresentable, CaseIterable, CustomStringConvertible {
    /// The kind's JSON name.
    public let rawValue: String

    /// A kind by its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A human face.
    public static let face = SubjectKind(rawValue: "face")
    /// A cat.
    public static let cat = SubjectKind(rawValue: "cat")
    /// A dog.
    public static let dog = SubjectKind(rawValue: "dog")
    /// A whole person (body).
    public static let person = SubjectKind(rawValue: "person")
    /// A region of visual interest with no known kind.
    public static let saliency = SubjectKind(rawValue: "saliency")
    /// A head the face detector missed, inferred from the top of a person's box that holds no
    /// face (a profile, the back of a head). It ranks with faces, below them in weight.
    public static let head = SubjectKind(rawValue: "head")

    /// Every kind with a row in the table: the built-in ones, then those registered, in order.
    public static var allCases: [SubjectKind] { SubjectKindTraits.all.map(\.kind) }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var codingKey: any CodingKey { Name(stringValue: rawValue) }

    public init?<T: CodingKey>(codingKey: T) { self.init(rawValue: codingKey.stringValue) }

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// One subject in the pixels of the oriented image, origin top left.
public struct Subject: Hashable, Sendable, Codable {
    /// What the subject is.
    public var kind: SubjectKind
    /// Where it is, in pixels of the oriented full-size image.
    public var box: Box
    /// The detector's confidence, 0...1 (1 for subjects a person supplied).
    public var confidence: Double

    /// Creates a subject.
    /// - Parameters:
    ///   - kind: What it is.
    ///   - box: Where it is, in pixels of the oriented image.
    ///   - confidence: 0...1; defaults to 1.
    public init(kind: SubjectKind, box: Box, confidence: Double = 1) {
        self.kind = kind
        self.box = box
        self.confidence = confidence
    }

    /// Whether the box and the confidence are finite numbers.
    public var isFinite: Bool {
        box.x.isFinite && box.y.isFinite && box.width.isFinite && box.height.isFinite && confidence.isFinite
    }
}
