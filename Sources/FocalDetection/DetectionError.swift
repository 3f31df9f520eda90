/// Why detection could not run.
public struct DetectionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Hashable, Sendable {
        /// A model file is not where Focal looked.
        case modelMissing
        /// OpenCV could not load a model file.
        case modelInvalid
        /// OpenCV failed while running a model.
        case inferenceFailed
        /// A subjects file is missing or malformed.
        case badSubjects
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
