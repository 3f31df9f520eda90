import Synchronization

/// One step of a job and the time spent in it (not in the steps timed inside it).
public struct StepTiming: Hashable, Sendable {
    /// The step's name: a pipeline step (`fetch`, `open`, `render`), or a part timed inside one
    /// (`decode`, `encode`, `detect-faces`).
    public let name: String
    /// The time spent in the step itself, summed over each time it ran in the job.
    public let duration: Duration

    /// Creates a timing.
    public init(name: String, duration: Duration) {
        self.name = name
        self.duration = duration
    }
}

/// Where a job's time went, step by step: each timed part records its own time, less the parts
/// timed inside it, so that the timings add up to the job's time (`Server-Timing`,
/// `focal crop --timings`, the per-step histograms of `/metrics`).
///
/// A job sets its clock as the task's (`StepClock.$current`), and anything it calls, in any
/// layer and in tasks started from it, times its part with `StepClock.time(_:_:)`; with no clock
/// set, timing costs one task-local read. Parts that run side by side (detectors in a task
/// group) count the time they overlap once in each, and their parent none of it.
public final class StepClock: Sendable {
    private struct State {
        var order: [String] = []
        var totals: [String: Duration] = [:]
    }

    /// The time timed inside one running part, so that it can leave it out of its own.
    public final class Frame: Sendable {
        fileprivate let clock: StepClock
        fileprivate let inner = Mutex(Duration.zero)
        fileprivate init(_ clock: StepClock) { self.clock = clock }
    }

    private let state = Mutex(State())

    /// The frame of the part the current task runs in, if a job is timing itself.
    @TaskLocal public static var current: Frame?

    /// Creates an empty clock.
    public init() {}

    /// The timings so far, in the order each name was first recorded, without the steps that
    /// took under `idle` (a step with nothing to do returns in a microsecond or two).
    public var timings: [StepTiming] {
        state.withLock { state in
            state.order.compactMap { name in
                let total = state.totals[name] ?? .zero
                return total >= Self.idle ? StepTiming(name: name, duration: total) : nil
            }
        }
    }

    /// `text` as a step name: lower case, and `-` for anything but letters, digits and `-`, so
    /// that it is a token an HTTP header and a metric label take as it is.
    public static func token(_ text: String) -> String {
        String(text.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" ? Character($0) : "-" })
    }

    /// What a step must take to be listed: 10 µs.
    public static let idle = Duration.microseconds(10)

    /// Adds `duration` to `name`'s total.
    public func record(_ name: String, _ duration: Duration) {
        state.withLock { state in
            if state.totals[name] == nil { state.order.append(name) }
            state.totals[name, default: .zero] += max(.zero, duration)
        }
    }

    /// Runs `body` as the top part of this clock's job (its parts recorded as they finish).
    public func timing<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await StepClock.$current.withValue(Frame(self)) { await Self.result(body) }
        return try result.get()
    }

    /// Runs `body` as the part `name` of the current job, if any, and records its own time.
    public static func time<T, E: Error>(_ name: String, _ body: () async throws(E) -> T) async throws(E) -> T {
        guard let parent = current else { return try await body() }
        let frame = Frame(parent.clock)
        let start = ContinuousClock.now
        let result: Result<T, E> = await $current.withValue(frame) { await Self.result(body) }
        frame.finish(name, since: start, in: parent)
        return try result.get()
    }

    /// Runs the synchronous `body` as the part `name` of the current job, if any (on a native
    /// pool's thread too: `NativeWorkPool` carries the part its work was asked from).
    public static func time<T, E: Error>(_ name: String, _ body: () throws(E) -> T) throws(E) -> T {
        guard let parent = current else { return try body() }
        let frame = Frame(parent.clock)
        let start = ContinuousClock.now
        let result: Result<T, E> = $current.withValue(frame) { Result { () throws(E) -> T in try body() } }
        frame.finish(name, since: start, in: parent)
        return try result.get()
    }

    private static func result<T, E: Error>(_ body: () async throws(E) -> T) async -> Result<T, E> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}

extension StepClock.Frame {
    /// Records `duration` as the part `name` inside this one (time spent before the part's work
    /// could start, such as a wait for a thread), left out of this part's own time.
    public func record(_ name: String, _ duration: Duration) {
        clock.record(name, duration)
        inner.withLock { $0 += max(.zero, duration) }
    }

    /// Records the part's own time and gives its whole time to `parent`'s inner total.
    fileprivate func finish(_ name: String, since start: ContinuousClock.Instant, in parent: StepClock.Frame) {
        let whole = ContinuousClock.now - start
        clock.record(name, whole - inner.withLock { $0 })
        parent.inner.withLock { $0 += whole }
    }
}
