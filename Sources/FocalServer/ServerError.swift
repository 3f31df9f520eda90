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

    /// `request.precondition_failed`: a saved crop changed since the revision a write expected.
    static func stale(_ expected: Int) -> ServerError {
        ServerError(.requestPreconditionFailed, "the saved crop has changed since revision \(expected); reload it")
    }

    /// Runs a store's database call: failures other than the service's own become `server.storage`.
    static func storage<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as ServerError {
            throw error
        } catch {
            throw ServerError(.serverStorage, "the overrides database failed", cause: String(reflecting: error))
        }
    }

    public var description: String { publicMessage.oneLine }

    public var detail: String { description + (cause.map { " [\($0.oneLine)]" } ?? "") }
}
