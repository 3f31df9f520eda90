import Foundation
internal import FocalRuntime

/// How the detectors run on the CPU: how many inferences at once, the threads of each, and where
/// compiled models are kept between runs.
public struct InferenceSettings: Hashable, Sendable {
    /// Inferences that may run at once (OpenVINO streams); default (nil) the number of cores.
    public var parallel: Int
    /// Threads each inference uses; default 1. With as many crops at once as cores (a server, a
    /// batch), 1 gives the most per second; a process that crops one image at a time does best
    /// with `parallel` 1 and all cores here.
    public var threadsPerInference: Int
    /// The folder of compiled models (OpenVINO's `CACHE_DIR`): with it, a new process has both
    /// models ready in a fraction of the time. Nil compiles every time. Default
    /// `defaultCacheFolder`.
    public var cacheFolder: String?
    /// The precisions the detectors may run in; each takes the fastest of these that the CPU
    /// runs and its models offer (`InferencePrecision`). Default
    /// `InferencePrecision.measuredLossless` (fp32, int8); `[.fp32]` runs everything in fp32.
    public var precisions: Set<InferencePrecision>

    /// Creates settings; every parameter defaults to the value documented on its property.
    public init(
        parallel: Int? = nil, threadsPerInference: Int = 1, cacheFolder: String? = InferenceSettings.defaultCacheFolder,
        precisions: Set<InferencePrecision> = InferencePrecision.measuredLossless
    ) {
        self.parallel = min(256, max(1, parallel ?? NativeWorkPool.coreCount))
        self.threadsPerInference = min(256, max(1, threadsPerInference))
        self.cacheFolder = cacheFolder
        self.precisions = precisions
    }

    /// Settings for `workers` crops at once, each inference with `threads` threads (nil: as many
    /// as leaves every core busy): `parallel` is the workers that fit on the cores at that width.
    public static func forWorkers(
        _ workers: Int, threads: Int?, cacheFolder: String? = InferenceSettings.defaultCacheFolder,
        precisions: Set<InferencePrecision> = InferencePrecision.measuredLossless
    ) -> InferenceSettings {
        let cores = NativeWorkPool.coreCount
        let width = threads ?? max(1, cores / max(1, workers))
        return InferenceSettings(
            parallel: max(1, min(workers, cores / max(1, width))), threadsPerInference: width, cacheFolder: cacheFolder, precisions: precisions)
    }

    /// `~/.cache/focal/compiled-models` in the user's home folder (Foundation's
    /// `homeDirectoryForCurrentUser`, which on Linux honours `HOME`); nil when there is none.
    public static var defaultCacheFolder: String? {
        let home = FileManager.default.homeDirectoryForCurrentUser.path
        return home.hasPrefix("/") && home != "/" ? home + "/.cache/focal/compiled-models" : nil
    }

    /// The folder the command line and the server use, from their environment: `FOCAL_MODEL_CACHE`
    /// (empty or `off`: none), else `XDG_CACHE_HOME/focal/compiled-models`, else `defaultCacheFolder`.
    /// The library reads no other environment itself.
    public static func cacheFolder(environment: [String: String]) -> String? {
        if let explicit = environment["FOCAL_MODEL_CACHE"] { return explicit.isEmpty || explicit == "off" ? nil : explicit }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/focal/compiled-models" }
        return defaultCacheFolder
    }
}
