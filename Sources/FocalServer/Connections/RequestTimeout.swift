import Focal

/// Bounds a request's work: past `timeout` the work is cancelled and the request fails with 503
/// (`server.timeout`) and `Retry-After`. Handlers wrap their work in it; the pipeline stops at its
/// next stage once cancelled.
enum RequestTimeout {
    static func run<T: Sendable>(_ timeout: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ServerError(.serverTimeout, "the request took longer than \(timeout); try again")
            }
            return value
        }
    }
}
