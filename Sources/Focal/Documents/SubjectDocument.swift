public import FocalCore

/// A subject: `{"kind", "x", "y", "width", "height", "confidence"}`, in pixels of the upright image.
public struct SubjectDocument: Encodable, Sendable {
    public let kind: String
    public let x: Double, y: Double, width: Double, height: Double
    public let confidence: Double

    /// The subject's document.
    public init(_ subject: Subject) {
        kind = subject.kind.rawValue
        let box = BoxDocument(subject.box)
        (x, y, width, height) = (box.x, box.y, box.width, box.height)
        confidence = DocumentEncoding.fraction(subject.confidence)
    }
}
