import Dispatch
import Foundation
import Synchronization

/// Work that readies detection ahead of need, on one thread of its own, while an image is read and
/// decoded: starting OpenVINO (`prepareRuntime(_:)`), then the face model for an
/// image's shape (`FaceDetector.prepare(imageSize:)`), then the object model
/// (`ObjectDetector.prepare()`). Each piece runs once per process; when several wait, the runtime
/// goes first, then faces, then objects, whatever order they were asked in. A detector that needs
/// its model before the loader reaches it loads it itself; the loader then finds it loaded.
///
/// A process must not run its exit handlers while a load is inside OpenVINO: they would destroy
/// the runtime under it. A program either calls `wait()` before it exits or ends with `_exit`,
/// which runs none.
public enum BackgroundModelLoads {
    /// What loads first when several wait: the runtime, then each detection stage by its load
    /// order (`DetectionStage.loadOrder`).
    public struct Priority: Comparable, Sendable {
        /// Lower loads first.
        public let rawValue: Int
        /// A priority.
        public init(_ rawValue: Int) { self.rawValue = rawValue }
        /// OpenVINO itself, before any model.
        public static let runtime = Priority(0)
        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }

    private struct Pending: Sendable {
        let priority: Priority
        let load: @Sendable () -> Void
    }

    private struct State: Sendable {
        var started: Set<String> = []
        var pending: [Pending] = []
        var running = false
    }

    private static let state = Mutex(State())
    private static let unfinished = DispatchGroup()

    /// Queues `load` under `key`, the first time `key` is asked for only.
    static func start(_ key: String, priority: Priority, _ load: @escaping @Sendable () -> Void) {
        let spawn = state.withLock { state -> Bool in
            guard state.started.insert(key).inserted else { return false }
            unfinished.enter()
            state.pending.append(Pending(priority: priority, load: load))
            defer { state.running = true }
            return !state.running
        }
        if spawn { Thread.detachNewThread { drain() } }
    }

    /// Runs the queue until it is empty: the most urgent first, in order of arrival among equals.
    private static func drain() {
        while let next = state.withLock({ state -> Pending? in
            guard let index = state.pending.indices.min(by: { state.pending[$0].priority < state.pending[$1].priority }) else {
                state.running = false
                return nil
            }
            return state.pending.remove(at: index)
        }) {
            next.load()
            unfinished.leave()
        }
    }

    /// Queues starting OpenVINO (its libraries and CPU plugin) with `settings`' compiled-model
    /// cache, ahead of any model; does nothing once started.
    public static func prepareRuntime(_ settings: InferenceSettings) {
        InferenceRuntime.prepareInBackground(cacheFolder: settings.cacheFolder)
    }

    /// Blocks until every load queued so far has finished (each takes at most what compiling its
    /// model takes: tens of milliseconds from the cache, about a second without).
    public static func wait() { unfinished.wait() }
}
