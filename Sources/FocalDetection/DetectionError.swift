public import FocalCore

/// Why detection could not run.
public struct DetectionError: FocalError, Hashable {
    /// `models.missing`, `models.invalid`, `detection.failed`, or `request.invalid` for a
    /// subjects file that is missing, malformed or too large.
    public var code: ErrorCode
    /// What went wrong and what to do, for the person running Focal.
    public var message: String
    /// What went wrong, safe to show a remote user.
    public var publicMessage: String
    /// The underlying library's words (OpenVINO's or the shim's), for logs.
    public var cause: String?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: For the person running Focal: may name files and the fix.
    ///   - publicMessage: Safe for anyone; default a plain sentence for the code.
    ///   - cause: The library's words; default none.
    public init(_ code: ErrorCode, _ message: String, publicMessage: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        self.publicMessage = publicMessage ?? Self.plain(code)
    }

    static func plain(_ code: ErrorCode) -> String {
        switch code {
        case .modelsMissing: "the detection models are not installed on this server"
        case .modelsInvalid: "the detection models on this server could not be loaded"
        case .requestInvalid: "the subjects given are malformed"
        default: "subject detection failed"
        }
    }

    public var description: String { message.oneLine }

    public var detail: String { description + (cause.map { " [detector: \($0.oneLine)]" } ?? "") }
}
