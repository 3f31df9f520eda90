import FocalCore
public import FocalDetection

/// Settings of a pipeline: models, limits, detection, caches, concurrency and networking.
///
/// The defaults suit a server on the machine it runs on: native work as wide as the cores, at
/// most 16 jobs per core admitted at once, 64 MiB of results in memory, no disk cache.
public struct FocalConfiguration: Sendable {
    /// The model folder, searched alone; nil searches `./models` and the install prefix (the
    /// command line and the server pass `$FOCAL_MODELS` here).
    public var modelsPath: String?
    /// Byte and pixel limits on inputs, downloads included; default `ImageLimits.default`.
    public var limits: ImageLimits
    /// Minimum face score 0...1; default 0.6 (tiny faces and profiles score 0.6–0.75; the extra
    /// detections on animals are told apart by the pet-face rule).
    public var faceThreshold: Double
    /// Minimum cat, dog and person scores; default `ObjectDetector.defaultThresholds`.
    public var objectThresholds: [SubjectKind: Double]
    /// Whether cats, dogs and people are detected (YOLOv4-tiny, about 60–110 ms an image);
    /// default `true`.
    public var detectObjects: Bool
    /// Whether the saliency fallback runs; default `true`.
    public var detectSaliency: Bool
    /// Images whose subjects are remembered (by identity and detector settings); default 512.
    public var detectionCacheEntries: Int
    /// Bytes of finished results kept in memory; default 64 MiB; 0 turns it off.
    public var memoryCacheBytes: Int
    /// A folder of finished results that survives restarts; default nil (none).
    public var diskCache: DiskCacheSettings?
    /// Whether an input without a cache name is identified by its content's SHA-256 (one more
    /// read of its bytes) so that its results can be cached; default `true`. When false, only
    /// inputs with a cache name are cached.
    public var identifyByContent: Bool
    /// Native jobs (decode, detect, encode) at once; default the number of cores.
    public var workers: Int
    /// Distinct requests in progress at once, queued ones included; one more is refused with
    /// `NativeWorkPool.Overloaded`. Identical requests share a job and count once. Default
    /// 16 per worker.
    public var maxJobs: Int
    /// Bytes the jobs in progress may hold together: the bytes of files read and bodies
    /// downloaded, and the memory their decodes are estimated to need (`DecodeCost`), 8 MiB a
    /// job besides. A job that would pass it is refused with `NativeWorkPool.Overloaded` at once,
    /// as one past `maxJobs` is. Default 256 MiB.
    public var memoryBudget: Int
    /// Threads one detector inference uses; default nil: the cores shared among `workers`
    /// (1 when there are as many workers as cores: the most crops per second). Set it to the number
    /// of cores in a process that crops one image at a time: the shortest time per crop.
    public var inferenceThreads: Int?
    /// The folder where compiled detection models are kept between processes (OpenVINO's cache);
    /// default `InferenceSettings.defaultCacheFolder` (`~/.cache/focal/compiled-models`; the
    /// command line and the server honour `$FOCAL_MODEL_CACHE`); nil compiles the models in
    /// every process.
    public var compiledModelCache: String?
    /// The precisions the detectors may run in: each takes the fastest of these that the CPU
    /// runs and its models offer (`InferencePrecision`); default
    /// `InferencePrecision.measuredLossless` (fp32, int8); add `.bf16` to use it where the CPU
    /// has it; `[.fp32]` for fp32 only.
    public var precisions: Set<InferencePrecision>
    /// Timeouts, redirects and the User-Agent for URL inputs, and which sources and addresses
    /// they may reach; default `NetworkSettings()`, which fetches from public addresses only.
    public var network: NetworkSettings
    /// The bucket store `s3://BUCKET/KEY` inputs are read from; default nil, which refuses them
    /// (`storage.not_configured`). `ObjectStorageSettings(environment:)` reads AWS's variables.
    public var storage: ObjectStorageSettings?

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(
        modelsPath: String? = nil, limits: ImageLimits = .default, faceThreshold: Double = 0.6,
        objectThresholds: [SubjectKind: Double] = ObjectDetector.defaultThresholds, detectObjects: Bool = true,
        detectSaliency: Bool = true, detectionCacheEntries: Int = 512, memoryCacheBytes: Int = 64 << 20,
        diskCache: DiskCacheSettings? = nil, identifyByContent: Bool = true, workers: Int = NativeWorkPool.coreCount,
        maxJobs: Int? = nil, memoryBudget: Int = 256 << 20, inferenceThreads: Int? = nil,
        compiledModelCache: String? = InferenceSettings.defaultCacheFolder,
        precisions: Set<InferencePrecision> = InferencePrecision.measuredLossless, network: NetworkSettings = NetworkSettings(),
        storage: ObjectStorageSettings? = nil
    ) {
        self.modelsPath = modelsPath
        self.limits = limits
        self.faceThreshold = faceThreshold
        self.objectThresholds = objectThresholds
        self.detectObjects = detectObjects
        self.detectSaliency = detectSaliency
        self.detectionCacheEntries = detectionCacheEntries
        self.memoryCacheBytes = memoryCacheBytes
        self.diskCache = diskCache
        self.identifyByContent = identifyByContent
        self.workers = max(1, workers)
        self.maxJobs = maxJobs ?? 16 * max(1, workers)
        self.memoryBudget = memoryBudget
        self.inferenceThreads = inferenceThreads
        self.compiledModelCache = compiledModelCache
        self.precisions = precisions
        self.network = network
        self.storage = storage
    }
}

extension FocalConfiguration {
    /// How the built-in detectors run: `workers` inferences at once unless `inferenceThreads`
    /// makes each wider, `compiledModelCache` and `precisions`.
    public var inference: InferenceSettings {
        InferenceSettings.forWorkers(workers, threads: inferenceThreads, cacheFolder: compiledModelCache, precisions: precisions)
    }
}

extension FocalConfiguration {
    /// The precision each built-in detector runs in on this CPU with this configuration, by
    /// stage: `faces` and, when `detectObjects`, `objects`. Nothing is loaded to find them.
    public var detectorPrecisions: [(stage: String, precision: InferencePrecision)] {
        let inference = inference
        var list = [(stage: "faces", precision: FaceDetector.precision(settings: inference))]
        if detectObjects { list.append((stage: "objects", precision: ObjectDetector.precision(models: modelsPath, settings: inference))) }
        return list
    }

    /// `detectorPrecisions` and the CPU's features in a line for logs, e.g.
    /// "faces fp32, objects int8 (CPU: AVX2 AVX-512 VNNI)".
    public var precisionSummary: String {
        detectorPrecisions.map { "\($0.stage) \($0.precision.rawValue)" }.joined(separator: ", ") + " (CPU: \(CPUFeatures.current))"
    }
}
