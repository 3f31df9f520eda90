import Synchronization

/// Keeps calls away from a store that keeps failing: after `threshold` failures in a row it is
/// open for `coolDown`, and calls are refused at once without touching the store; then one call
/// is let through (half open), whose success closes it and whose failure opens it again.
final class CircuitBreaker: Sendable {
    /// Whether calls go through.
    enum State: String, Sendable {
        case closed
        case open
        case halfOpen = "half-open"
    }

    let threshold: Int
    let coolDown: Duration
    private let state = Mutex<(failures: Int, openedAt: ContinuousClock.Instant?, probing: Bool)>((0, nil, false))

    /// Creates a breaker.
    /// - Parameters:
    ///   - threshold: Failures in a row that open it (at least 1); default 3.
    ///   - coolDown: How long it stays open before one call is tried; default 5 s.
    init(threshold: Int = 3, coolDown: Duration = .seconds(5)) {
        self.threshold = max(1, threshold)
        self.coolDown = coolDown
    }

    /// Where it stands now.
    var current: State {
        state.withLock { state in
            guard let opened = state.openedAt else { return .closed }
            return ContinuousClock.now - opened >= coolDown ? .halfOpen : .open
        }
    }

    /// Whether a call may go to the store now: always while closed; once the cool-down has
    /// passed, one call at a time.
    func allows() -> Bool {
        state.withLock { state in
            guard let opened = state.openedAt else { return true }
            guard ContinuousClock.now - opened >= coolDown, !state.probing else { return false }
            state.probing = true
            return true
        }
    }

    /// A call succeeded: closed.
    func succeeded() {
        state.withLock { $0 = (0, nil, false) }
    }

    /// A call ended with no verdict (its caller was cancelled): a probe it was is free again.
    func abandoned() {
        state.withLock { $0.probing = false }
    }

    /// A call failed: open once `threshold` failed in a row, or again after a failed probe.
    func failed() {
        state.withLock { state in
            state.failures += 1
            if state.probing || state.failures >= threshold { state.openedAt = .now }
            state.probing = false
        }
    }
}
