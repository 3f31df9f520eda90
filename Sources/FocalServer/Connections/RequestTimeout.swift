import Focal

/// Bounds a request's work: past `timeout` the request fails at once with 503 (`server.timeout`)
/// and `Retry-After`, and its work is cancelled (the pipeline stops at its next stage) without
/// being waited for (`TimeBound`). Handlers wrap their work in it.
enum RequestTimeout {
    static func run<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await TimeBound.run(timeout, timedOut: { ServerError(.serverTimeout, "the request took longer than \(timeout); try again") }, work)
    }
}
