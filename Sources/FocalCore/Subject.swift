/// What a detector found.
public enum SubjectKind: String, Hashable, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    /// A human face.
    case face
    /// A cat.
    case cat
    /// A dog.
    case dog
    /// A whole person (body).
    case person
    /// A region of visual interest with no known kind.
    case saliency
    /// A head the face detector missed, inferred from the top of a person's box that holds no
    /// face (a profile, the back of a head). It ranks with faces, below them in weight.
    case head
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
