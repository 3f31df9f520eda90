import FocalCore

/// A face that only redaction's own passes found (a lower threshold, tiles of a larger copy),
/// with what a second look at it made of it (`FocalPipeline.redactionFaces(in:confirmedBy:)`).
struct RedactionCandidate: Sendable {
    /// The face, in pixels of the image searched.
    let face: Subject
    /// Whether it is hidden as surely a face: it lies on a face the detection stages found, a
    /// second look scored it at least `Redaction.confirmedScore`, or it came past the
    /// `Redaction.mostSecondLooks` and was not looked at (unexamined is not uncertain). A sure face
    /// is grown by its margin; an uncertain one is hidden at its own size.
    let certain: Bool
}
