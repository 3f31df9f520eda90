@testable import Focal
import FocalRuntime
import Testing

/// The admission gate's shares: one lane (a server's client) holds at most half of the places and
/// half of the budget, so the other half is left to other clients; work of no lane has no share.
@Suite struct AdmissionTests {
    @Test("one lane holds at most half of the places; another lane gets the rest")
    func aLaneHoldsHalfThePlaces() throws {
        let gate = Admission(maxJobs: 8, budget: 1 << 30)
        let flood = try WorkLane.$current.withValue("flood") { try (0..<4).map { _ in try gate.admit() } }
        #expect(throws: NativeWorkPool.Overloaded.self) { try WorkLane.$current.withValue("flood") { try gate.admit() } }
        let others = try WorkLane.$current.withValue("other") { try (0..<4).map { _ in try gate.admit() } }
        #expect(gate.usage.jobs == 8)
        #expect(throws: NativeWorkPool.Overloaded.self) { try WorkLane.$current.withValue("third") { try gate.admit() } }
        // A place given back is the lane's again.
        flood[0].finish()
        let again = try WorkLane.$current.withValue("flood") { try gate.admit() }
        for pass in flood + others + [again] { pass.finish() }
        #expect(gate.usage.jobs == 0 && gate.usage.bytes == 0)
    }

    @Test("work of no lane (the CLI, a library call) may take every place")
    func noLaneHasNoShare() throws {
        let gate = Admission(maxJobs: 4, budget: 1 << 30)
        let passes = try (0..<4).map { _ in try gate.admit() }
        #expect(throws: NativeWorkPool.Overloaded.self) { try gate.admit() }
        for pass in passes { pass.finish() }
    }

    @Test("one lane reserves at most half of the budget while others hold memory; another lane gets the rest")
    func aLaneReservesHalfTheBudget() throws {
        let budget = 256 << 20
        let gate = Admission(maxJobs: 16, budget: budget)
        let other = try WorkLane.$current.withValue("other") { try gate.admit() }
        try other.reserve(16 << 20)
        let flood = try WorkLane.$current.withValue("flood") { try (0..<3).map { _ in try gate.admit() } }
        try flood[0].reserve(64 << 20)
        try flood[1].reserve(32 << 20)
        // The flood holds 3 × 8 MiB of base and 96 MiB: 24 MiB more passes its half (128 MiB).
        #expect(throws: NativeWorkPool.Overloaded.self) { try flood[2].reserve(24 << 20) }
        try flood[2].reserve(8 << 20)
        // The budget itself has room for the other lane.
        try other.reserve(64 << 20)
        for pass in flood + [other] { pass.finish() }
        #expect(gate.usage.bytes == 0)
    }

    @Test("a lane's only job may pass its share while the budget holds, even while another lane holds memory")
    func aLanesOnlyJobMayPassItsShare() throws {
        let gate = Admission(maxJobs: 8, budget: 256 << 20)
        let other = try WorkLane.$current.withValue("other") { try gate.admit() }
        try other.reserve(32 << 20)
        let large = try WorkLane.$current.withValue("client") { try gate.admit() }
        // 200 MiB: past the client's half (128 MiB), within the budget with the other's 40 MiB.
        try large.reserve(200 << 20)
        // A second job of the same client is held to the share: not even admitted now.
        #expect(throws: NativeWorkPool.Overloaded.self) { try WorkLane.$current.withValue("client") { try gate.admit() } }
        // A job finished takes nothing more.
        other.finish()
        try other.reserve(64 << 20)
        large.finish()
        #expect(gate.usage.jobs == 0 && gate.usage.bytes == 0)
    }

    @Test("a lane's job alone may still go past its share, as past the budget")
    func aJobAloneMayPassTheShare() throws {
        let gate = Admission(maxJobs: 4, budget: 64 << 20)
        let pass = try WorkLane.$current.withValue("client") { try gate.admit() }
        try pass.reserve(200 << 20)
        pass.finish()
        #expect(gate.usage.bytes == 0)
    }
}
