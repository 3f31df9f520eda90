import Synchronization

/// Runs one job per key however many callers ask for it at once.
///
/// A new job is admitted through an `Admission` gate (a place and its base memory) or refused at
/// once; a caller that joins a running job takes no place. The job runs with its pass current,
/// and gives it back when it ends.
///
/// Callers of a running job wait for its result. A caller that is cancelled gets
/// `CancellationError` at once and leaves the job to the others; when the last caller has gone,
/// the job's task is cancelled (the job checks between its stages) and forgotten, so a later
/// caller starts afresh.
final class SharedJobs<Value: Sendable>: Sendable {
    /// Whether a caller started a job or joined one.
    enum Arrival {
        case started
        case joined
    }

    private enum Outcome {
        case waiting(Arrival)
        case refused(NativeWorkPool.Overloaded)
        case cancelled
    }

    private struct Job {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
    }

    private struct State {
        var jobs: [String: Job] = [:]
        var waiterJob: [UInt64: String] = [:]
        /// Callers between their arrival and their registration with a job.
        var arriving: Set<UInt64> = []
        /// Arriving callers that were cancelled before they registered.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    /// The gate a new job passes; a caller that would start one it refuses is refused.
    let gate: Admission
    private let state = Mutex(State())

    init(gate: Admission) { self.gate = gate }

    /// Jobs running now.
    var running: Int { state.withLock { $0.jobs.count } }

    /// The value of the job for `key`, starting it with `work` when none runs.
    /// - Parameters:
    ///   - key: Equal keys share one job.
    ///   - admitted: Called once, before waiting, with whether this caller started or joined a job.
    ///   - work: The job; it runs in a task of its own and should check for cancellation between
    ///     stages.
    /// - Throws: `NativeWorkPool.Overloaded` when the gate refuses a new job, `CancellationError`,
    ///   or what the job throws.
    func value(
        for key: String, admitted: @Sendable (Arrival) -> Void, work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let waiter = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.arriving.insert(state.nextID)
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let outcome = state.withLock { state -> Outcome in
                    state.arriving.remove(waiter)
                    if state.cancelledEarly.remove(waiter) != nil { return .cancelled }
                    if var job = state.jobs[key] {
                        job.waiters[waiter] = continuation
                        state.jobs[key] = job
                        state.waiterJob[waiter] = key
                        return .waiting(.joined)
                    }
                    let pass: Admission.Pass
                    do throws(NativeWorkPool.Overloaded) {
                        pass = try gate.admit()
                    } catch {
                        return .refused(error)
                    }
                    state.nextID += 1
                    let id = state.nextID
                    var job = Job(id: id)
                    job.waiters[waiter] = continuation
                    // Creating a task does not run it, so it cannot finish before it is recorded.
                    job.task = Task { [self] in
                        defer { pass.finish() }
                        do {
                            let value = try await Admission.$current.withValue(pass) { try await work() }
                            finish(key: key, id: id, result: .success(value))
                        } catch {
                            finish(key: key, id: id, result: .failure(error))
                        }
                    }
                    state.jobs[key] = job
                    state.waiterJob[waiter] = key
                    return .waiting(.started)
                }
                switch outcome {
                case let .waiting(admission): admitted(admission)
                case let .refused(error): continuation.resume(throwing: error)
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            leave(waiter)
        }
    }

    private func finish(key: String, id: UInt64, result: Result<Value, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard let job = state.jobs[key], job.id == id else { return [] }
            state.jobs[key] = nil
            for waiter in job.waiters.keys { state.waiterJob[waiter] = nil }
            return Array(job.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    private func leave(_ waiter: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
            guard let key = state.waiterJob.removeValue(forKey: waiter), var job = state.jobs[key] else {
                // Not registered yet: refuse it when it arrives. (Otherwise it has its answer.)
                if state.arriving.contains(waiter) { state.cancelledEarly.insert(waiter) }
                return nil
            }
            let continuation = job.waiters.removeValue(forKey: waiter)
            if job.waiters.isEmpty {
                job.task?.cancel()
                state.jobs[key] = nil
            } else {
                state.jobs[key] = job
            }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }
}
