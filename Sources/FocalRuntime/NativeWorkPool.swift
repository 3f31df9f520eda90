public import FocalCore
import Foundation
import Synchronization

/// Runs blocking native work (decode, detect, encode) on a bounded set of threads of its own,
/// never on Swift's cooperative pool, and refuses work beyond a queue limit.
///
/// Waiting work takes turns by lane (`WorkLane.current` when it was queued): a thread that comes
/// free takes the oldest work of the lane with the fewest jobs running (of those, the lane whose
/// turn was longest ago), so a client with a hundred jobs queued does not make another client's
/// one job wait behind all of them.
///
/// The threads are the pool's own (a thread per running drain of the queue), not libdispatch's
/// worker threads: those are as many as the machine has cores, shared by every queue of the
/// process, so a job that blocks there (a model compiling under a lock, a slow file) would stall
/// every other pool's work too.
public final class NativeWorkPool: BlockingExecutor {
    /// Why work was refused: too much is already waiting. Code `server.overloaded`.
    public struct Overloaded: FocalError, Hashable {
        /// Jobs waiting when this one was refused.
        public let waiting: Int

        /// Creates the error.
        /// - Parameter waiting: Jobs already waiting or running.
        public init(waiting: Int) { self.waiting = waiting }

        public var code: ErrorCode { .serverOverloaded }

        public var publicMessage: String { "too many requests are in progress; try again shortly" }

        public var description: String {
            "overloaded: \(waiting) jobs are already waiting; try again later or raise the limit"
        }
    }

    private struct Waiting {
        let id: UInt64
        let lane: String
        let job: @Sendable () -> Void
    }

    private struct State {
        var running = 0
        var waiting: [Waiting] = []
        /// Jobs running per lane (lanes with none are left out).
        var lanes: [String: Int] = [:]
        /// When each lane last had work started (a count of starts), for taking turns.
        var turns: [String: UInt64] = [:]
        var starts: UInt64 = 0
        var nextID: UInt64 = 0

        mutating func started(_ lane: String) {
            lanes[lane, default: 0] += 1
            starts += 1
            // Lanes long idle are forgotten: a lane never seen goes first anyway.
            if turns.count >= 4096 { turns = turns.filter { lanes[$0.key] != nil } }
            turns[lane] = starts
        }

        mutating func ended(_ lane: String) {
            let left = (lanes[lane] ?? 1) - 1
            lanes[lane] = left > 0 ? left : nil
        }

        /// Takes the next work to run: the oldest of the lane with the fewest jobs running, and
        /// of those the lane whose turn was longest ago.
        mutating func next() -> Waiting? {
            var best: Int?
            var bestRank = (running: Int.max, turn: UInt64.max)
            for (index, work) in waiting.enumerated() {
                let rank = (running: lanes[work.lane] ?? 0, turn: turns[work.lane] ?? 0)
                if rank < bestRank {
                    best = index
                    bestRank = rank
                }
            }
            guard let best else { return nil }
            return waiting.remove(at: best)
        }
    }

    /// The most jobs that run at once.
    public let width: Int
    /// The most jobs that may wait; more are refused with `Overloaded`.
    public let queueLimit: Int
    private let state = Mutex(State())

    /// A pool shared by everything in the process, as wide as the machine has cores.
    public static let shared = NativeWorkPool()

    /// Creates a pool.
    /// - Parameters:
    ///   - width: Jobs at once; default the number of active cores.
    ///   - queueLimit: Jobs that may wait; default 256.
    public init(width: Int = NativeWorkPool.coreCount, queueLimit: Int = 256) {
        self.width = max(1, width)
        self.queueLimit = max(0, queueLimit)
    }

    /// Jobs running now and jobs waiting for a thread.
    public var load: (running: Int, waiting: Int) { state.withLock { ($0.running, $0.waiting.count) } }

    /// The number of cores this process may use.
    public static var coreCount: Int { max(1, sysconfCores()) }

    /// Runs `work` on the pool and returns its result.
    ///
    /// A caller cancelled while its job waits gets `CancellationError` at once and the job never
    /// runs; a job already running finishes (native work cannot be interrupted halfway).
    /// - Throws: `Overloaded` when the queue is full, `CancellationError`, or what `work` throws.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let ticket = Ticket<T>()
        let lane = WorkLane.current ?? ""
        // The part of a job this work is timed in, carried to the pool's thread; the wait for a
        // thread is timed as `pool-wait`, not as the part's own.
        let part = StepClock.current
        let queued = ContinuousClock.now
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard ticket.attach(continuation) else { return }
                let job: @Sendable () -> Void = {
                    guard ticket.begin() else { return }
                    part?.record("pool-wait", ContinuousClock.now - queued)
                    ticket.finish(StepClock.$current.withValue(part) { Result { try work() } })
                }
                let start: Bool? = state.withLock { state in
                    if state.running < width {
                        state.running += 1
                        state.started(lane)
                        return true
                    }
                    guard state.waiting.count < queueLimit else { return nil }
                    state.waiting.append(Waiting(id: id, lane: lane, job: job))
                    return false
                }
                switch start {
                case nil: ticket.finish(.failure(Overloaded(waiting: queueLimit)))
                case true?: Thread.detachNewThread { self.drain(first: Waiting(id: id, lane: lane, job: job)) }
                case false?: break
                }
            }
        } onCancel: {
            ticket.cancel()
            // A cancelled job gives up its place in the queue at once.
            state.withLock { $0.waiting.removeAll { $0.id == id } }
        }
    }

    /// One job's continuation, resumed exactly once: by the job, or by cancellation before the job
    /// began.
    private final class Ticket<T: Sendable>: Sendable {
        private enum Phase {
            case idle
            case waiting(CheckedContinuation<T, any Error>)
            case running(CheckedContinuation<T, any Error>)
            case cancelled
            case done
        }
        private let phase = Mutex(Phase.idle)

        /// Stores the continuation; false (having resumed it) when cancellation came first.
        func attach(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
            let cancelled = phase.withLock { phase -> Bool in
                if case .cancelled = phase { return true }
                phase = .waiting(continuation)
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        /// Marks the job as started; false when it was cancelled while it waited.
        func begin() -> Bool {
            phase.withLock { phase in
                guard case let .waiting(continuation) = phase else { return false }
                phase = .running(continuation)
                return true
            }
        }

        func finish(_ result: Result<T, any Error>) {
            let continuation = phase.withLock { phase -> CheckedContinuation<T, any Error>? in
                switch phase {
                case let .waiting(c), let .running(c):
                    phase = .done
                    return c
                default: return nil
                }
            }
            continuation?.resume(with: result)
        }

        func cancel() {
            let continuation = phase.withLock { phase -> CheckedContinuation<T, any Error>? in
                switch phase {
                case .idle:
                    phase = .cancelled
                    return nil
                case let .waiting(c):
                    phase = .cancelled
                    return c
                default: return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Runs `first`, then waiting jobs in turn by lane, until none are left.
    private func drain(first: Waiting) {
        var next: Waiting? = first
        while let work = next {
            work.job()
            next = state.withLock { state in
                state.ended(work.lane)
                guard let following = state.next() else {
                    state.running -= 1
                    return nil
                }
                state.started(following.lane)
                return following
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
private func sysconfCores() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
#elseif canImport(Darwin)
import Darwin
private func sysconfCores() -> Int { Int(sysconf(_SC_NPROCESSORS_ONLN)) }
#else
private func sysconfCores() -> Int { 1 }
#endif
