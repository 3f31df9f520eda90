import Dispatch

/// Somewhere to run blocking work without holding one of Swift's cooperative threads.
public protocol BlockingExecutor: Sendable {
    /// Runs `work` and returns its result.
    /// - Throws: What `work` throws, `CancellationError`, or a refusal when the executor is full.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T
}

/// Runs each piece of work on a global dispatch queue: unbounded, for a detector used on its own.
/// A pipeline passes its bounded pool instead.
public struct ThreadExecutor: BlockingExecutor {
    /// Creates the executor.
    public init() {}

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
