import Synchronization

/// Runs work with a time bound that holds whatever the work does: past the bound the caller gets
/// the timeout error at once and the work is cancelled, but never waited for. (A task group
/// would wait for its child, and a call blocked on a frozen database connection answers
/// cancellation only when its socket gives up, a minute or more later.)
enum TimeBound {
    /// The result of `work`, or `timedOut()` once `timeout` has passed, whichever comes first;
    /// a cancelled caller gets `CancellationError` at once. The work runs as a task of its own
    /// that inherits the caller's task-local values and priority.
    static func run<T: Sendable>(
        _ timeout: Duration, timedOut: @escaping @Sendable () -> any Error, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.start(continuation, work: work, timeout: timeout, timedOut: timedOut)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// One call's contestants: the work and the timer; the first to finish resumes the caller,
    /// and the other is cancelled.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var tasks: [Task<Void, Never>] = []
            var finished = false
            /// A result that came before the caller's continuation was set (a cancellation).
            var early: Result<T, any Error>?
        }

        private let state = Mutex(State())

        func start(
            _ continuation: CheckedContinuation<T, any Error>, work: @escaping @Sendable () async throws -> T, timeout: Duration,
            timedOut: @escaping @Sendable () -> any Error
        ) {
            let early = state.withLock { state -> Result<T, any Error>? in
                if let early = state.early { return early }
                state.continuation = continuation
                return nil
            }
            if let early {
                continuation.resume(with: early)
                return
            }
            let worker = Task {
                let result: Result<T, any Error>
                do { result = .success(try await work()) } catch { result = .failure(error) }
                self.finish(result)
            }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self.finish(.failure(timedOut()))
            }
            let late = state.withLock { state -> Bool in
                state.tasks = [worker, timer]
                return state.finished
            }
            // Finished (cancelled) while the tasks were being made: stop them now.
            if late {
                worker.cancel()
                timer.cancel()
            }
        }

        /// Resumes the caller with `result`, once, and cancels whatever still runs.
        func finish(_ result: Result<T, any Error>) {
            let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
                guard !state.finished else { return (nil, []) }
                state.finished = true
                if state.continuation == nil { state.early = result }
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            for task in tasks { task.cancel() }
            continuation?.resume(with: result)
        }
    }
}
