import FocalRuntime
import Foundation
import Synchronization
import Testing

/// `StepClock`: each part records its own time, less the parts timed inside it (on a native
/// pool's thread too), so a job's timings add up to its time.
@Suite struct StepClockTests {
    @Test("nested parts: the outer one's own time leaves out the inner one's, and the pool carries the part")
    func nestedPartsAddUp() async throws {
        let clock = StepClock()
        let pool = NativeWorkPool(width: 1, queueLimit: 4)
        let start = ContinuousClock.now
        try await clock.timing {
            try await StepClock.time("outer") {
                try await Task.sleep(for: .milliseconds(30))
                try await pool.run {
                    StepClock.time("native") { usleep(40_000) }
                }
                await StepClock.time("inner") { try? await Task.sleep(for: .milliseconds(20)) }
                await StepClock.time("inner") { try? await Task.sleep(for: .milliseconds(20)) }
            }
        }
        let whole = ContinuousClock.now - start
        let timings = Dictionary(uniqueKeysWithValues: clock.timings.map { ($0.name, $0.duration) })
        // (`pool-wait`, the native work's wait for a thread, is listed when it took 10 µs or more.)
        #expect(clock.timings.map(\.name).filter { $0 != "pool-wait" } == ["native", "inner", "outer"], "in the order each was first recorded")
        #expect(timings["native", default: .zero] >= .milliseconds(40))
        #expect(timings["inner", default: .zero] >= .milliseconds(40), "a part that runs twice is summed")
        let outer = timings["outer", default: .zero]
        #expect(outer >= .milliseconds(30) && outer < whole - .milliseconds(80), "the outer part's own time: \(outer) of \(whole)")
        let sum = clock.timings.reduce(Duration.zero) { $0 + $1.duration }
        #expect(sum <= whole, "the parts add up to no more than the whole")
    }

    @Test("work that waits for a pool thread has the wait timed as pool-wait, not as its own")
    func poolWaitIsApart() async throws {
        let clock = StepClock()
        let pool = NativeWorkPool(width: 1, queueLimit: 4)
        let release = Atomic(false)
        // The pool's one thread is held until the timed work has waited for it a while.
        let blocker = Task { try await pool.run { while !release.load(ordering: .acquiring) { usleep(1000) } } }
        while pool.load.running < 1 { try await Task.sleep(for: .milliseconds(1)) }
        let timed = Task { () async throws -> Duration in
            let start = ContinuousClock.now
            try await clock.timing {
                try await StepClock.time("step") { try await pool.run { StepClock.time("native") { usleep(5_000) } } }
            }
            return ContinuousClock.now - start
        }
        while pool.load.waiting < 1 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(40))
        release.store(true, ordering: .releasing)
        let whole = try await timed.value
        try await blocker.value
        let timings = Dictionary(uniqueKeysWithValues: clock.timings.map { ($0.name, $0.duration) })
        let wait = timings["pool-wait", default: .zero], own = timings["step", default: .zero]
        #expect(wait >= .milliseconds(40), "\(clock.timings)")
        // The step's own time is what is left of the whole once the wait and the native work are
        // out (on a busy machine, its resumption after the work can take a while).
        #expect(own + wait + timings["native", default: .zero] <= whole + .milliseconds(1), "\(clock.timings) of \(whole)")
    }

    @Test("a stage's name becomes a token a header and a metric label take")
    func tokens() {
        #expect(StepClock.token("detect-faces") == "detect-faces")
        #expect(StepClock.token("detect-custom:My Stage/1") == "detect-custom-my-stage-1")
    }

    @Test("with no clock set, a timed part just runs, and a throwing one throws its own error")
    func noClock() throws {
        struct Failure: Error, Equatable {}
        #expect(StepClock.time("free") { 42 } == 42)
        #expect(throws: Failure()) { try StepClock.time("failing") { () throws(Failure) -> Int in throw Failure() } }
    }
}
