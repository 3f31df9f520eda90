package import Focal
import Foundation
import Synchronization
package import Testing

/// A detector that holds every call at a gate until the test opens it, so that a job is provably
/// in flight while the test cancels or joins it. It finds nothing.
///
/// It ignores cancellation on purpose, like native work that cannot be interrupted: a cancelled
/// job stays inside `detect` until the gate opens, then stops at the pipeline's next check.
package final class GateDetector: SubjectDetecting {
    private struct State {
        var calls = 0
        var isOpen: Bool
        var held: [CheckedContinuation<Void, Never>] = []
    }

    package let identifier: String
    private let state: Mutex<State>

    /// - Parameters:
    ///   - identifier: Part of the detection cache key; default "gate".
    ///   - open: Whether calls pass straight through; default false (held until `open()`).
    package init(identifier: String = "gate", open: Bool = false) {
        self.identifier = identifier
        state = Mutex(State(isOpen: open))
    }

    /// Calls of `detect` so far, held or not.
    package var calls: Int { state.withLock { $0.calls } }
    /// Calls waiting at the gate now.
    package var waiting: Int { state.withLock { $0.held.count } }

    /// Lets every held call through, and every later one.
    package func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held = [] }
            return state.held
        }
        for call in held { call.resume() }
    }

    /// Holds later calls again.
    package func close() { state.withLock { $0.isOpen = false } }

    package func detect(_ request: DetectionRequest) async throws -> [Subject] {
        state.withLock { $0.calls += 1 }
        await withCheckedContinuation { (call: CheckedContinuation<Void, Never>) in
            let pass = state.withLock { state in
                if state.isOpen { return true }
                state.held.append(call)
                return false
            }
            if pass { call.resume() }
        }
        return []
    }
}

/// Raised when a condition polled with `pollUntil` did not come true in time.
package struct PollTimeout: Error, CustomStringConvertible {
    package let what: String
    package var description: String { "timed out waiting until \(what)" }
}

/// Polls `condition` every few milliseconds until it holds; records an issue and throws after
/// `seconds` (default 120: a gated detector runs after the faces, whose model a cold compiled-model
/// cache and a whole parallel test run can take tens of seconds to load).
package func pollUntil(
    _ what: String, seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while try !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            throw PollTimeout(what: what)
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// A call running in a task of its own whose outcome can be polled, so that a test can tell
/// whether it has finished without waiting for it (and without hanging when it never does).
package final class Tracked<T: Sendable>: Sendable {
    private let outcome = Mutex<Result<T, any Error>?>(nil)
    private let handle = Mutex<Task<Void, Never>?>(nil)

    package init(_ body: @escaping @Sendable () async throws -> T) {
        let task = Task { [self] in
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        handle.withLock { $0 = task }
    }

    /// Cancels the call's task.
    package func cancel() { handle.withLock { $0?.cancel() } }

    /// Whether the call has returned or thrown.
    package var isDone: Bool { outcome.withLock { $0 != nil } }

    /// Whether the call threw `CancellationError` (false while it runs).
    package var threwCancellation: Bool {
        outcome.withLock { outcome in
            if case let .failure(error)? = outcome { error is CancellationError } else { false }
        }
    }

    /// The call's outcome, waiting (by polling) up to `seconds` for it.
    package func result(within seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> Result<T, any Error>
    {
        try await pollUntil("the call finishes", seconds: seconds, sourceLocation: sourceLocation) { isDone }
        return try #require(outcome.withLock { $0 }, sourceLocation: sourceLocation)
    }

    /// The call's value, waiting (by polling) up to `seconds` for it.
    package func value(within seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation) async throws -> T {
        try await result(within: seconds, sourceLocation: sourceLocation).get()
    }
}
