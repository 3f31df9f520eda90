import Dispatch
import FocalCore
import FocalRuntime
import Foundation
import Synchronization
import FocalTestSupport
import Testing

/// Native work that counts how many run at once and blocks until the test lets one go.
private final class Turnstile: Sendable {
    struct Counts {
        var running = 0
        var peak = 0
        var started = 0
        var finished = 0
        var permits = 0
    }

    private let state = Mutex(Counts())

    var counts: Counts { state.withLock { $0 } }

    /// Runs on a pool thread: counts itself in, blocks until a permit is given, counts itself out.
    func pass() {
        state.withLock { counts in
            counts.running += 1
            counts.started += 1
            counts.peak = max(counts.peak, counts.running)
        }
        // Blocking on purpose, as native work does; the pool's threads are its own.
        while !state.withLock({ counts in
            guard counts.permits > 0 else { return false }
            counts.permits -= 1
            return true
        }) {
            usleep(500)
        }
        state.withLock { counts in
            counts.running -= 1
            counts.finished += 1
        }
    }

    /// Lets `count` blocked (or future) passes through.
    func release(_ count: Int = 1) { state.withLock { $0.permits += count } }
}

/// A call running in a task of its own whose outcome can be polled.
private final class PoolCall<T: Sendable>: Sendable {
    private let outcome = Mutex<Result<T, any Error>?>(nil)
    private let handle = Mutex<Task<Void, Never>?>(nil)

    init(_ body: @escaping @Sendable () async throws -> T) {
        let task = Task { [self] in
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
        }
        handle.withLock { $0 = task }
    }

    func cancel() { handle.withLock { $0?.cancel() } }
    var isDone: Bool { outcome.withLock { $0 != nil } }
    var result: Result<T, any Error>? { outcome.withLock { $0 } }
    var error: (any Error)? {
        if case let .failure(error)? = result { error } else { nil }
    }
    var value: T? { try? result?.get() }
}

/// Polls `condition` until it holds; records an issue and throws after `seconds` (default 120:
/// the whole suite shares a few cores, and a pool thread may wait its turn for seconds).
private func poolPoll(
    _ what: String, seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(2))
    }
}

@Suite struct NativeWorkPoolTests {
    @Test("never more jobs run at once than the pool is wide, and a freed slot takes the next job")
    func widthBoundsConcurrency() async throws {
        let pool = NativeWorkPool(width: 3, queueLimit: 100)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let calls = (0..<12).map { index in
            PoolCall { try await pool.run { () -> Int in
                turnstile.pass()
                return index
            } }
        }
        try await poolPoll("the pool is full") { turnstile.counts.running == 3 }
        // Every job has been submitted and the pool is full: none may start until one finishes.
        try await Task.sleep(for: .milliseconds(50))
        #expect(turnstile.counts.started == 3)
        for finished in 1...12 {
            turnstile.release()
            try await poolPoll("\(finished) finished and the next started") {
                let counts = turnstile.counts
                return counts.finished == finished && counts.running == min(3, 12 - finished)
            }
            #expect(turnstile.counts.running <= 3)
        }
        try await poolPoll("every call returns") { calls.allSatisfy(\.isDone) }
        #expect(calls.map(\.value) == (0..<12).map { $0 })
        #expect(turnstile.counts.peak == 3)
    }

    @Test("waiting work takes turns by lane: one lane's long queue does not hold another's one job")
    func lanesTakeTurns() async throws {
        let pool = NativeWorkPool(width: 1, queueLimit: 100)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let order = Mutex<[String]>([])
        let blocker = PoolCall { try await WorkLane.$current.withValue("flood") { try await pool.run { turnstile.pass() } } }
        try await poolPoll("the worker is busy") { turnstile.counts.running == 1 }
        let flood = (0..<8).map { index in
            PoolCall { try await WorkLane.$current.withValue("flood") { try await pool.run { order.withLock { $0.append("flood \(index)") } } } }
        }
        try await poolPoll("the flood is queued") { pool.load.waiting == 8 }
        let other = PoolCall { try await WorkLane.$current.withValue("other") { try await pool.run { order.withLock { $0.append("other") } } } }
        try await poolPoll("the other client's job is queued") { pool.load.waiting == 9 }
        turnstile.release()
        try await poolPoll("everything ran") { blocker.isDone && other.isDone && flood.allSatisfy(\.isDone) }
        let ran = order.withLock { $0 }
        #expect(ran.first == "other", "the lane with nothing running goes first: \(ran)")
        #expect(Array(ran.dropFirst()) == (0..<8).map { "flood \($0)" }, "a lane's own work keeps its order")
    }

    @Test("beyond the queue limit work is refused with Overloaded, and the pool recovers")
    func queueLimit() async throws {
        let pool = NativeWorkPool(width: 1, queueLimit: 2)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let blocker = PoolCall { try await pool.run { turnstile.pass() } }
        try await poolPoll("the worker is busy") { turnstile.counts.running == 1 }

        let calls = (0..<3).map { _ in PoolCall { try await pool.run { turnstile.pass() } } }
        try await poolPoll("one call is refused") { calls.contains { $0.isDone } }
        let refused = calls.filter(\.isDone)
        #expect(refused.count == 1)
        let overloaded = try #require(refused.first?.error as? NativeWorkPool.Overloaded)
        #expect(overloaded.waiting == 2)
        #expect(turnstile.counts.started == 1, "queued work waits")

        turnstile.release(3)
        try await poolPoll("the blocker and the queued calls finish") { blocker.isDone && calls.allSatisfy(\.isDone) }
        #expect(blocker.error == nil)
        #expect(calls.filter { $0.error == nil }.count == 2)
        #expect(turnstile.counts.finished == 3)
        #expect(try await pool.run { 42 } == 42)
    }

    @Test("with no queue, work beyond the width is refused at once")
    func noQueue() async throws {
        let pool = NativeWorkPool(width: 1, queueLimit: 0)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let blocker = PoolCall { try await pool.run { turnstile.pass() } }
        try await poolPoll("the worker is busy") { turnstile.counts.running == 1 }
        await #expect(throws: NativeWorkPool.Overloaded.self) { try await pool.run { 1 } }
        turnstile.release()
        try await poolPoll("the blocker finishes") { blocker.isDone }
        #expect(try await pool.run { 2 } == 2)
    }

    @Test("a caller cancelled while its job waits gets CancellationError at once, and the job never runs")
    func cancelledWaitingJobNeverRuns() async throws {
        let pool = NativeWorkPool(width: 1, queueLimit: 10)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let ran = Mutex(0)
        let blocker = PoolCall { try await pool.run { turnstile.pass() } }
        try await poolPoll("the worker is busy") { turnstile.counts.running == 1 }

        // Eleven callers for ten places: once one is refused, the other ten are provably queued.
        let waiting = (0..<11).map { _ in PoolCall { try await pool.run { ran.withLock { $0 += 1 } } } }
        try await poolPoll("the queue is full") { waiting.contains { $0.isDone } }
        let queued = waiting.filter { !$0.isDone }
        #expect(queued.count == 10)
        #expect(waiting.filter { $0.error is NativeWorkPool.Overloaded }.count == 1)

        for call in queued { call.cancel() }
        // The worker is still blocked, so returning now means not waiting for it.
        try await poolPoll("the cancelled callers return") { queued.allSatisfy(\.isDone) }
        #expect(queued.allSatisfy { $0.error is CancellationError })
        #expect(turnstile.counts.running == 1)

        turnstile.release()
        try await poolPoll("the blocker finishes") { blocker.isDone }
        // Jobs run in order on the single worker: once this one has run, the queue has drained.
        // (Cancelled jobs keep their places until the worker reaches them, so it may be refused
        // for a moment; see `cancelledJobLeavesQueue`.)
        var seen: Int?
        for _ in 0..<5000 where seen == nil {
            do {
                seen = try await pool.run { ran.withLock { $0 } }
            } catch is NativeWorkPool.Overloaded {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        #expect(seen == 0, "no cancelled job ran")
        #expect(ran.withLock { $0 } == 0)
    }

    @Test("a cancelled waiting job gives up its place in the queue")
    func cancelledJobLeavesQueue() async throws {
        let pool = NativeWorkPool(width: 1, queueLimit: 1)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let blocker = PoolCall { try await pool.run { turnstile.pass() } }
        try await poolPoll("the worker is busy") { turnstile.counts.running == 1 }
        // Two callers for one place: once one is refused, the other is provably queued.
        let callers = (0..<2).map { _ in PoolCall { try await pool.run { 1 } } }
        try await poolPoll("the queue is full") { callers.contains { $0.isDone } }
        let queued = try #require(callers.first { !$0.isDone })
        queued.cancel()
        try await poolPoll("the cancelled caller returns") { queued.isDone }
        #expect(queued.error is CancellationError)

        // Nothing waits now, so one job may.
        let next = PoolCall { try await pool.run { 2 } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(next.error == nil, "refused although no job waits: \(String(describing: next.error))")
        turnstile.release()
        try await poolPoll("everything finishes") { blocker.isDone && next.isDone }
        #expect(next.value == 2)
    }

    @Test("a caller already cancelled never runs its job")
    func cancelledBeforeRun() async throws {
        let pool = NativeWorkPool(width: 2)
        let ran = Mutex(false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pool.run { ran.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await pool.run { 1 } == 1)
        #expect(!ran.withLock { $0 })
    }

    @Test("a job already running finishes and returns its value to a caller cancelled meanwhile")
    func runningJobFinishes() async throws {
        let pool = NativeWorkPool(width: 1)
        let turnstile = Turnstile()
        defer { turnstile.release(100) }
        let call = PoolCall { try await pool.run { () -> Int in
            turnstile.pass()
            return 7
        } }
        try await poolPoll("the job runs") { turnstile.counts.running == 1 }
        call.cancel()
        try await Task.sleep(for: .milliseconds(20))
        #expect(!call.isDone, "running native work cannot be interrupted")
        turnstile.release()
        try await poolPoll("the job finishes") { call.isDone }
        #expect(call.value == 7)
    }

    @Test("what the work throws reaches the caller")
    func errorsPropagate() async throws {
        struct Oops: Error, Equatable {}
        let pool = NativeWorkPool(width: 1)
        await #expect(throws: Oops()) { try await pool.run { () throws -> Int in throw Oops() } }
        #expect(try await pool.run { 3 } == 3)
    }
}
