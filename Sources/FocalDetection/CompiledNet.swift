internal import CFocalInference
import FocalCore
import Dispatch
import Foundation
internal import FocalRuntime
import Synchronization

/// One OpenVINO runtime per cache folder, shared by every net of the process.
final class InferenceRuntime: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Why the cache folder is not used, when it is not.
    let cacheProblem: String?

    private init(pointer: OpaquePointer, cacheProblem: String?) {
        self.pointer = pointer
        self.cacheProblem = cacheProblem
    }
    deinit { focal_ov_runtime_free(pointer) }

    /// The OpenVINO build this process runs.
    static var version: String { String(cString: focal_ov_version()) }

    private static let runtimes = Mutex<[String: InferenceRuntime]>([:])

    /// The runtime for `cacheFolder` (nil: none), created on first use (under the table's lock:
    /// creating one takes about a millisecond).
    static func shared(cacheFolder: String?) throws(DetectionError) -> InferenceRuntime {
        let key = cacheFolder ?? ""
        return try runtimes.withLock { (table) throws(DetectionError) -> InferenceRuntime in
            if let runtime = table[key] { return runtime }
            let prepared = cacheFolder.map { CompiledModelCache.prepare($0, runtimeVersion: version) }
            let (pointer, text) = withErrorText { focal_ov_runtime_create(prepared?.path, $0, $1) }
            guard let pointer else { throw DetectionError(.modelsInvalid, "cannot start OpenVINO", cause: text) }
            let runtime = InferenceRuntime(pointer: pointer, cacheProblem: prepared?.problem)
            table[key] = runtime
            return runtime
        }
    }

    /// The CPU plugin's OPTIMIZATION_CAPABILITIES, e.g. ["FP32", "INT8", "BIN", "EXPORT_IMPORT"].
    func cpuCapabilities() throws(DetectionError) -> [String] {
        var buffer = [CChar](repeating: 0, count: 512)
        let (code, text) = withErrorText { err, len in
            buffer.withUnsafeMutableBufferPointer { focal_ov_cpu_capabilities(pointer, $0.baseAddress, $0.count, err, len) }
        }
        guard code == 0 else { throw DetectionError(.modelsInvalid, "cannot read OpenVINO's CPU capabilities", cause: text) }
        let value = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return value.split(separator: " ").map(String.init)
    }

    /// Queues the creation of the runtime for `cacheFolder` (OpenVINO's libraries and CPU plugin
    /// loaded) on the background loader, ahead of any model.
    static func prepareInBackground(cacheFolder: String?) {
        BackgroundModelLoads.start("runtime|" + (cacheFolder ?? ""), priority: .runtime) {
            _ = try? shared(cacheFolder: cacheFolder)
        }
    }
}

/// A model compiled for the CPU, with a pool of inference requests: one per concurrent caller.
final class CompiledNet: @unchecked Sendable {
    private let pointer: OpaquePointer
    private let runtime: InferenceRuntime
    private let idle = Mutex<[Session]>([])

    /// One inference request with its scratch buffers; freed with it.
    private final class Session: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { focal_ov_session_free(pointer) }
    }

    private init(pointer: OpaquePointer, runtime: InferenceRuntime) {
        self.pointer = pointer
        self.runtime = runtime
    }
    deinit {
        idle.withLock { $0.removeAll() }
        focal_ov_net_free(pointer)
    }

    /// One model's place in the table: its lock is held while it compiles, so that a second
    /// caller waits for the first compile rather than compiling again, while other models compile
    /// side by side.
    private final class Slot: Sendable {
        let net = Mutex<CompiledNet?>(nil)
    }

    /// A net's key in the tables: its model and kind (`key`) and the settings it is compiled with.
    private static func fullKey(_ key: String, _ settings: InferenceSettings) -> String {
        "\(key)|\(settings.parallel)x\(settings.threadsPerInference)|\(settings.cacheFolder ?? "")"
    }

    /// Nets compiled so far, by model file, kind and settings: a model is compiled once per
    /// process, whichever detectors use it.
    private static let slots = Mutex<[String: Slot]>([:])

    /// The net for `key`, compiled by `compile` on first use. A failed compile is not
    /// remembered: the next caller tries again.
    static func shared(
        key: String, settings: InferenceSettings,
        compile: (OpaquePointer, UnsafeMutablePointer<CChar>, Int) -> OpaquePointer?
    ) throws(DetectionError) -> CompiledNet {
        let runtime = try InferenceRuntime.shared(cacheFolder: settings.cacheFolder)
        let fullKey = Self.fullKey(key, settings)
        let slot = slots.withLock { table in
            if let slot = table[fullKey] { return slot }
            let slot = Slot()
            table[fullKey] = slot
            return slot
        }
        return try slot.net.withLock { (net) throws(DetectionError) -> CompiledNet in
            if let net { return net }
            let (pointer, text) = withErrorText { compile(runtime.pointer, $0, $1) }
            guard let pointer else { throw DetectionError(.modelsInvalid, "cannot compile \(key)", cause: text) }
            let compiled = CompiledNet(pointer: pointer, runtime: runtime)
            net = compiled
            return compiled
        }
    }

    /// Queues `load` (which compiles or loads the net of `key` with `settings`) on the background
    /// loader, the first time only; errors are dropped: the detector that needs the net meets them
    /// again and reports them.
    static func prepareInBackground(
        key: String, settings: InferenceSettings, priority: BackgroundModelLoads.Priority,
        _ load: @escaping @Sendable () throws(DetectionError) -> Void
    ) {
        BackgroundModelLoads.start(Self.fullKey(key, settings), priority: priority) {
            try? load()
        }
    }

    /// Runs `body` with an inference request nobody else is using.
    func with<T>(_ body: (OpaquePointer) throws(DetectionError) -> T) throws(DetectionError) -> T {
        let session: Session
        if let reused = idle.withLock({ $0.popLast() }) {
            session = reused
        } else {
            let (created, text) = withErrorText { focal_ov_session_create(pointer, $0, $1) }
            guard let created else { throw DetectionError(.detectionFailed, "cannot create an inference request", cause: text) }
            session = Session(created)
        }
        defer { idle.withLock { $0.append(session) } }
        return try body(session.pointer)
    }
}
