import FocalRuntime
import Synchronization

/// The one gate all expensive work passes: a bounded number of jobs in progress and a memory
/// budget they share. A job is admitted at once or refused at once (`NativeWorkPool.Overloaded`,
/// code `server.overloaded`); nothing waits in a queue for a place. Admission itself reads,
/// lists and hashes nothing.
///
/// An admitted job holds a `Pass`. What the job keeps in memory is reserved on the pass as it
/// becomes known: the bytes of a file read or a body downloaded (as they arrive), and the decode
/// cost estimated from the image's header. A reservation that does not fit the budget fails with
/// `Overloaded` too, so a flood of large inputs is refused rather than held; except that a job
/// may always go past the budget while no other job holds more than its base, so that one input
/// within the image limits (`ImageLimits`: up to 64 MiB of bytes and 256 MiB of decode) is never
/// refused by an idle server. Everything a pass reserved is given back when its job ends.
///
/// Clients share the gate: a job done for a client (`WorkLane.current`, set by the server per
/// request) counts against its lane too, and one lane may hold at most half of the places
/// (`laneJobs`) and half of the budget (`laneBudget`), so that a client asking for cold renders as
/// fast as it can leaves the other half to everyone else. Work done for no lane (the CLI, a
/// library call) has no share.
///
/// The pass of the job running now is `Admission.current` (a task local), so the stages of a job
/// reserve on it without being handed it.
final class Admission: Sendable {
    /// The memory one job is assumed to hold before anything is known of its input: working
    /// copies, tensors, the encoded output of a typical crop.
    static let baseBytes = 8 << 20

    /// One admitted job's place and reservations; released once, by `finish()` or deinit.
    final class Pass: Sendable {
        private let admission: Admission
        private let lane: String?
        private let reserved = Mutex(0)
        private let done = Atomic(false)

        fileprivate init(admission: Admission, lane: String?, bytes: Int) {
            self.admission = admission
            self.lane = lane
            reserved.withLock { $0 = bytes }
        }

        /// Reserves `bytes` more of the budget for this job.
        /// - Throws: `NativeWorkPool.Overloaded` when the budget cannot hold them.
        func reserve(_ bytes: Int) throws(NativeWorkPool.Overloaded) {
            // Nothing is taken for a job already finished (it would never be given back).
            guard bytes > 0, !done.load(ordering: .acquiring) else { return }
            try reserved.withLock { (held: inout Int) throws(NativeWorkPool.Overloaded) in
                try admission.take(bytes, holding: held, lane: lane)
                held += bytes
            }
        }

        /// Gives back the job's place and everything it reserved.
        func finish() {
            guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
            admission.release(lane: lane, bytes: reserved.withLock { $0 })
        }

        deinit { finish() }
    }

    private struct Share {
        var jobs = 0
        var bytes = 0
    }

    private struct State {
        var jobs = 0
        var bytes = 0
        var refused = 0
        /// What each lane holds (lanes holding nothing are left out).
        var lanes: [String: Share] = [:]
    }

    /// The most jobs in progress at once.
    let maxJobs: Int
    /// The bytes jobs in progress may reserve together.
    let budget: Int
    /// The most jobs one lane may have in progress: half of `maxJobs`, at least one.
    let laneJobs: Int
    /// The bytes one lane's jobs may reserve together: half of `budget` (a lane's only job may go
    /// past it while the budget holds, and a job alone past both).
    let laneBudget: Int
    private let state = Mutex(State())

    /// The pass of the job this task runs for, if any.
    @TaskLocal static var current: Pass?

    /// Creates a gate.
    /// - Parameters:
    ///   - maxJobs: Jobs in progress at once (at least 1).
    ///   - budget: Bytes they may reserve together (at least one job's base).
    init(maxJobs: Int, budget: Int) {
        self.maxJobs = max(1, maxJobs)
        self.budget = max(Self.baseBytes, budget)
        laneJobs = max(1, self.maxJobs / 2)
        laneBudget = max(Self.baseBytes, self.budget / 2)
    }

    /// Jobs in progress and bytes reserved now.
    var usage: (jobs: Int, bytes: Int) { state.withLock { ($0.jobs, $0.bytes) } }

    /// Admits one job for the current lane (`WorkLane.current`), reserving its base memory.
    /// - Throws: `NativeWorkPool.Overloaded` when `maxJobs` jobs are in progress or the budget
    ///   is spent, or the lane holds its share of either.
    func admit() throws(NativeWorkPool.Overloaded) -> Pass {
        let lane = WorkLane.current
        let refusal = state.withLock { state -> Int? in
            let share = lane.flatMap { state.lanes[$0] } ?? Share()
            guard state.jobs < maxJobs, state.bytes + Self.baseBytes <= budget,
                lane == nil || (share.jobs < laneJobs && share.bytes + Self.baseBytes <= laneBudget)
            else {
                state.refused += 1
                return state.jobs
            }
            state.jobs += 1
            state.bytes += Self.baseBytes
            if let lane { state.lanes[lane] = Share(jobs: share.jobs + 1, bytes: share.bytes + Self.baseBytes) }
            return nil
        }
        if let refusal { throw NativeWorkPool.Overloaded(waiting: refusal) }
        return Pass(admission: self, lane: lane, bytes: Self.baseBytes)
    }

    /// Runs `body` as an admitted job: refused at once when there is no place, its pass current
    /// while it runs and released when it returns or throws.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let pass = try admit()
        defer { pass.finish() }
        return try await Admission.$current.withValue(pass) { try await body() }
    }

    /// Reserves `bytes` on the current job's pass; nothing when no job is current (a caller of
    /// the library's lower layers outside the pipeline).
    static func reserve(_ bytes: Int) throws(NativeWorkPool.Overloaded) {
        try current?.reserve(bytes)
    }

    /// Takes `bytes` for a pass of `lane` that holds `held` already.
    fileprivate func take(_ bytes: Int, holding held: Int, lane: String?) throws(NativeWorkPool.Overloaded) {
        let refusal = state.withLock { state -> Int? in
            let (total, overflow) = state.bytes.addingReportingOverflow(bytes)
            let share = lane.flatMap { state.lanes[$0] } ?? Share()
            let (laneTotal, laneOverflow) = share.bytes.addingReportingOverflow(bytes)
            // What the other jobs hold beyond their base: nothing means this one may pass the budget.
            let othersBeyondBase = state.bytes - held - (state.jobs - 1) * Self.baseBytes
            // A lane's only job may pass its share while the budget holds: one large input within
            // the image limits is not refused for its client's share.
            let fits = total <= budget && (lane == nil || laneTotal <= laneBudget || share.jobs <= 1)
            guard !overflow, !laneOverflow, fits || othersBeyondBase <= 0 else {
                state.refused += 1
                return state.jobs
            }
            state.bytes = total
            if let lane { state.lanes[lane, default: Share()].bytes = laneTotal }
            return nil
        }
        if let refusal { throw NativeWorkPool.Overloaded(waiting: refusal) }
    }

    /// Gives back a job's place and the `bytes` it reserved.
    fileprivate func release(lane: String?, bytes: Int) {
        state.withLock { state in
            state.jobs = max(0, state.jobs - 1)
            state.bytes = max(0, state.bytes - bytes)
            guard let lane, var share = state.lanes[lane] else { return }
            share.jobs -= 1
            share.bytes -= bytes
            state.lanes[lane] = share.jobs > 0 ? share : nil
        }
    }
}
