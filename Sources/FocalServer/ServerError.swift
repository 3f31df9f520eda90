public import Focal

/// What the service itself refuses: malformed URLs, signatures, tokens, bodies, timeouts.
public struct ServerError: FocalError, Hashable {
    /// The kind of failure (`request.*` or `server.*`).
    public let code: ErrorCode
    /// What is wrong, safe to show the client.
    public let publicMessage: String
    /// More for the logs, when there is more.
    public let cause: String?

    /// Creates an error.
    public init(_ code: ErrorCode, _ publicMessage: String, cause: String? = nil) {
        self.code = code
        self.publicMessage = publicMessage
        self.cause = cause
    }

    /// `request.invalid` with a message naming what is malformed.
    public static func invalid(_ message: String) -> ServerError { ServerError(.requestInvalid, message) }

    public var description: String { publicMessage.oneLine }

    public var detail: String { description + (cause.map { " [\($0.oneLine)]" } ?? "") }
}
