import Synchronization

/// Jobs that would detect in the same image take turns: the first detects, and each of the others
/// waits for the one before it, then finds what it found in the detection cache and runs only
/// the stages it still needs. So a page's `srcset` ladder asked all at once (five sizes of one
/// new photo) detects once, not five times.
///
/// A waiter holds no thread: it is suspended. One that is cancelled leaves the line at once with
/// `CancellationError`; a turn whose work throws passes to the next waiter, which detects itself.
final class DetectionTurns: Sendable {
    private struct Line {
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    private struct State {
        var lines: [DetectionCache.Key: Line] = [:]
        /// Callers between their arrival and their place in a line.
        var arriving: Set<UInt64> = []
        /// Arriving callers that were cancelled before they took their place.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Jobs waiting for their turn now (for tests).
    var waiting: Int { state.withLock { $0.lines.values.reduce(0) { $0 + $1.waiting.count } } }

    /// Runs `work` when no other job's turn for `key` runs, after those that came before.
    /// - Throws: `CancellationError` when the caller is cancelled while it waits, or what `work`
    ///   throws.
    func inTurn<T: Sendable>(_ key: DetectionCache.Key, _ work: () async throws -> T) async throws -> T {
        try await take(key)
        do {
            let value = try await work()
            pass(key)
            return value
        } catch {
            pass(key)
            throw error
        }
    }

    private func take(_ key: DetectionCache.Key) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case mine, queued, cancelled }
                let outcome = state.withLock { state -> Outcome in
                    state.arriving.remove(id)
                    if state.cancelledEarly.remove(id) != nil { return .cancelled }
                    guard var line = state.lines[key] else {
                        state.lines[key] = Line()
                        return .mine
                    }
                    line.waiting.append((id, continuation))
                    state.lines[key] = line
                    return .queued
                }
                switch outcome {
                case .mine: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .queued: break
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if state.arriving.contains(id) {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                guard var line = state.lines[key], let index = line.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                let removed = line.waiting.remove(at: index)
                state.lines[key] = line
                return removed.continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Ends the current turn for `key`: the next waiter's begins, or the line goes.
    private func pass(_ key: DetectionCache.Key) {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard var line = state.lines[key] else { return nil }
            guard !line.waiting.isEmpty else {
                state.lines[key] = nil
                return nil
            }
            let next = line.waiting.removeFirst()
            state.lines[key] = line
            return next.continuation
        }
        next?.resume()
    }
}
