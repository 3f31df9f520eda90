public import FocalCore
public import FocalDetection
public import FocalImaging
internal import FocalRuntime
public import Foundation
import FocalFetch
import Synchronization

/// Crops images so that their subjects stay in view: fetch, open, detect, plan, render, encode,
/// with caches, shared jobs and bounded native work.
///
/// ```swift
/// let pipeline = FocalPipeline()
/// let avatar = try await pipeline.crop(.url(photoURL), to: .size(width: 400, height: 400))
/// // avatar.data: JPEG bytes; avatar.plan: crop, subjects, strategy; avatar.origin: .fresh
/// ```
///
/// - Results are cached in memory (bounded in bytes) and, when configured, on disk, under the
///   input's identity (its cache name, or the SHA-256 of its content) and every option that
///   changes the output. Subjects are cached apart from results, so one detection serves every
///   target and option.
/// - Identical requests running at once share one job. A cancelled caller leaves the job to the
///   others; when all have cancelled, the job stops at its next stage and caches nothing.
/// - Native work runs on a pool as wide as `configuration.workers`, never on Swift's cooperative
///   pool. Every job that reads, fetches, decodes or detects (a crop that is not in a cache, an
///   analysis) is admitted through one gate: beyond `configuration.maxJobs` jobs in progress, or
///   once they hold `configuration.memoryBudget` bytes, a request is refused with
///   `NativeWorkPool.Overloaded` at once. Admission reads and hashes nothing first.
///
/// A pipeline is safe to share between tasks; make one per process and keep it.
public final class FocalPipeline: Sendable {
    /// The settings it was made with.
    public let configuration: FocalConfiguration
    /// The detection stages it runs, in order: faces, your detectors' and stages, objects, saliency.
    public let stages: [DetectionStage]
    /// The kinds its own stages declare that are not built in, whose registered ranking is part
    /// of its detector signature.
    let ownKinds: Set<SubjectKind>
    /// The stages' detectors, per accuracy, made once.
    let loadedStages = Mutex<[Accuracy: [(DetectionStage, DetectionStage.Loaded)]]>([:])
    let pool: NativeWorkPool
    let detectionCache: DetectionCache
    /// Jobs detecting in the same image take turns, so the later ones find the subjects cached.
    let detectionTurns = DetectionTurns()
    private let results: ResultCache
    private let disk: DiskCache?
    private let jobs: SharedJobs<CropResult>
    let admission: Admission
    let loader: URLLoader
    /// The objects `s3://` inputs are read from: the store's client and what each read had.
    public let objects: ObjectSource
    /// The overlays' identities, by where they are read (`overlayIdentity(of:)`).
    let overlayIdentities = Mutex<[String: OverlayIdentity]>([:])
    let overrides: (any CropOverriding)?
    let counters = Mutex(PipelineStatistics())
    /// The face detectors redaction adds, made on first use: the accurate one at
    /// `Redaction.faceThreshold` for its extra passes, the fast one for its second looks.
    let redactionFaceDetector = Mutex<FaceDetector?>(nil), secondLookDetector = Mutex<FaceDetector?>(nil)
    let redactionObjectDetectorSlot = Mutex<ObjectDetector?>(nil)

    /// Creates a pipeline.
    /// - Parameters:
    ///   - configuration: Models, limits, thresholds, caches, concurrency, networking; default
    ///     `FocalConfiguration()`.
    ///   - detectors: Your own detectors, each a stage of its own (`DetectionStage.custom`) that
    ///     runs for every crop after the faces; default none.
    ///   - stages: Your own detection stages, run after `detectors`, before the objects; default none.
    ///   - overrides: Where crops people saved are found; default none.
    public init(
        configuration: FocalConfiguration = FocalConfiguration(), detectors: [any SubjectDetecting] = [],
        stages: [DetectionStage] = [], overrides: (any CropOverriding)? = nil
    ) {
        self.configuration = configuration
        self.stages = DetectionStage.inOrder(own: detectors.map { DetectionStage.custom($0) } + stages)
        ownKinds = Set(self.stages.flatMap(\.kinds)).subtracting(SubjectKindTraits.builtIn.map(\.kind))
        self.overrides = overrides
        // Each job has at most a few native pieces in flight (the detectors run side by side).
        pool = NativeWorkPool(width: configuration.workers, queueLimit: max(64, 4 * configuration.maxJobs))
        detectionCache = DetectionCache(capacity: configuration.detectionCacheEntries)
        results = ResultCache(capacity: configuration.memoryCacheBytes)
        disk = configuration.diskCache.map(DiskCache.init)
        admission = Admission(maxJobs: configuration.maxJobs, budget: configuration.memoryBudget)
        jobs = SharedJobs(gate: admission)
        // A download is held until its job ends: its bytes go on the job's memory budget.
        loader = URLLoader(settings: configuration.network, maxBytes: configuration.limits.maxInputBytes) { try Admission.reserve($0) }
        objects = ObjectSource(settings: configuration.storage, maxBytes: configuration.limits.maxInputBytes, admission: admission, pool: pool)
    }

    /// What the pipeline has done so far, and what its caches hold now.
    public var statistics: PipelineStatistics {
        var statistics = counters.withLock { $0 }
        statistics.downloads += objects.readCount
        (statistics.memoryEntries, statistics.memoryBytes) = results.usage
        let usage = admission.usage
        statistics.jobsInProgress = usage.jobs
        statistics.admittedBytes = usage.bytes
        statistics.queueDepth = pool.load.waiting
        if let disk {
            let usage = disk.usage
            (statistics.diskEntries, statistics.diskBytes, statistics.diskDiscarded) = (usage.entries, usage.bytes, usage.discarded)
            (statistics.diskIgnored, statistics.diskWriteFailures) = (usage.ignored, usage.writeFailures)
        }
        return statistics
    }

    // MARK: - Cropping

    /// Crops an image to a target, keeping its subjects in view, and encodes the result.
    ///
    /// - Parameters:
    ///   - input: A file, bytes or an http(s) URL, optionally with a cache name.
    ///   - target: An exact output size or an aspect ratio.
    ///   - options: Crop, detection, encoding and fallback options; default `.default`.
    /// - Returns: The encoded bytes, the plan, every subject found, and where the result came from.
    /// - Throws: `PlanningError` for invalid options; `FetchError`, `ImagingError` or
    ///   `DetectionError` naming the input (unless `options.fallback` turns them into a result);
    ///   `NativeWorkPool.Overloaded`; `CancellationError`.
    public func crop(_ input: ImageInput, to target: CropTarget, options: FocalOptions = .default) async throws -> CropResult {
        try await crop(input, sizedBy: .fixed(target), options: options)
    }

    /// Crops an image to a target chosen from its size once its header is read, keeping its
    /// subjects in view, and encodes the result.
    ///
    /// - Parameters:
    ///   - input: A file, bytes or an http(s) URL, optionally with a cache name.
    ///   - rule: The target, fixed or derived from the image's size.
    ///   - options: Crop, detection, encoding and fallback options; default `.default`.
    /// - Returns: The encoded bytes, the plan, every subject found, and where the result came from.
    /// - Throws: as `crop(_:to:options:)`.
    public func crop(_ input: ImageInput, sizedBy rule: TargetRule, options: FocalOptions = .default) async throws -> CropResult {
        if let target = rule.fixed {
            try target.validate()
            if case let .size(width, height) = target {
                try configuration.limits.check(output: PixelSize(width: width, height: height))
            }
        }
        try options.validate()
        counters.withLock { $0.requests += 1 }
        do {
            return try await cropOrShare(input, sizedBy: rule, options: options)
        } catch {
            if error is NativeWorkPool.Overloaded { counters.withLock { $0.refused += 1 } }
            // A redaction fails closed: no placeholder stands in for an image whose faces could
            // not be looked for.
            guard case let .placeholder(image) = options.fallback, options.redaction == nil, !(error is CancellationError),
                (error as? any FocalError)?.code != .requestInvalid
            else { throw error }
            return try await placeholder(image, sizedBy: rule, options: options, reason: error)
        }
    }

    /// Answers from a cache, or joins or starts the job for this request: the crop's steps
    /// (`cropSteps`) in an admitted job shared by identical requests. What can be known without
    /// work runs first (a given identity: its saved crop, then the result lookup).
    private func cropOrShare(_ input: ImageInput, sizedBy rule: TargetRule, options: FocalOptions) async throws -> CropResult {
        var job = CropJob(input: input, rule: rule, options: options, detectors: detectorSignature(options.accuracy))
        job.wantsResult = true
        try await job.clock.timing { try await runWhenKnown(&job) }
        if var result = job.result {
            result.timings = job.clock.timings
            return result
        }
        // Without an identity, requests for the same file or URL share a job all the same.
        var jobKey = ResultKey(
            identity: job.identity ?? ImageIdentity(location: input.location), target: rule.key, options: job.options,
            detectors: job.detectors
        ).text
        if options.fallback == .centerCrop { jobKey += "|center-fallback" }
        let start = job
        let joined = Atomic(false)
        var shared = try await jobs.value(for: jobKey) { [self] admission in
            joined.store(admission == .joined, ordering: .relaxed)
            counters.withLock { admission == .joined ? ($0.jobsJoined += 1) : ($0.jobsStarted += 1) }
        } work: { [self] in
            do {
                var job = start
                try await job.clock.timing { try await run(&job, Self.cropSteps) }
                guard var result = job.result else {
                    throw ImagingError(.internalFailure, "the crop's steps made no result", source: input.description)
                }
                result.timings = job.clock.timings
                return result
            } catch is CancellationError {
                counters.withLock { $0.jobsCancelled += 1 }
                throw CancellationError()
            }
        }
        shared.joinedInFlight = joined.load(ordering: .relaxed)
        return shared
    }

    /// The size a target rule is derived from: the bounds (clipped to the image), else the image.
    static func ruleSize(_ image: SourceImage, _ crop: CropOptions) -> PixelSize {
        guard let bounds = crop.bounds else { return image.size }
        let clipped = bounds.box.clamped(to: image.size)
        return PixelSize(width: max(1, Int(clipped.width.rounded(.down))), height: max(1, Int(clipped.height.rounded(.down))))
    }

    /// The long side, in pixels of a decode of the whole image, that the output needs when that
    /// is known before detection: a size target with the largest crop (its crop size does not
    /// depend on the subjects). Nil when it depends on them (zoom, overrides).
    func outputLongSide(_ image: SourceImage, _ target: CropTarget, _ crop: CropOptions) -> Int? {
        guard crop.override == nil, crop.bounds == nil, case .fill = crop.zoom else { return nil }
        let long = Double(max(image.size.width, image.size.height))
        switch target {
        case .aspect: return Int(long)
        case let .size(width, height):
            // The largest crop of the target's aspect, as the planner sizes it, scaled to the output.
            let fill = CropPlanner.fillSize(imageSize: image.size, aspect: (width, height))
            let scale = max(Double(width) / Double(fill.width), Double(height) / Double(fill.height))
            return Int((long * scale).rounded(.up))
        }
    }

    /// A working copy whose base decode serves the detectors and, when `outputLongSide` is
    /// known and no larger than the image, the output as well.
    func workingCopy(of image: SourceImage, accuracy: Accuracy, outputLongSide: Int?) -> WorkingCopy {
        let long = max(image.size.width, image.size.height)
        let side = min(long, max(accuracy.faceLongSide, outputLongSide ?? 0))
        return WorkingCopy(image: image, baseLongSide: side, pool: pool) { [self] in
            counters.withLock { $0.proxyDecodes += 1 }
        }
    }

    /// Renders a plan from the working copy's decode when it holds enough pixels (decoding it now
    /// when detection did not: the detection cache answered); otherwise from the file, decoded at
    /// the output's scale. Which of the two depends only on the image, the base size and the plan,
    /// never on whether detection ran in this process: one plan renders the same bytes on every
    /// replica and after a restart, so one ETag always stands for one set of bytes.
    func render(_ plan: CropPlan, of copy: WorkingCopy, settings: EncodeSettings, transform: PixelTransform? = nil) async throws -> Data {
        if let data = try await copy.render(plan, settings: settings, transform: transform) {
            counters.withLock { $0.renders += 1 }
            return data
        }
        if let transform { return try await render(copy.image, plan: plan, settings: settings, transform: transform) }
        return try await render(copy.image, plan: plan, settings: settings)
    }

    /// The options with the crop a person saved for this image at this target's ratio, when there
    /// is one and the request would otherwise detect: the saved crop and its revision, which are
    /// part of the result's key. How it decides the crop (`SavedCropRule`) is applied once the
    /// image's size is known (`savedCropApplied`). Also answers the saved crop itself, if any.
    /// When the store cannot answer (`SavedCropsUnavailable`), the options say so and no saved
    /// crop applies.
    func applyingOverride(
        _ options: FocalOptions, identity: ImageIdentity, target: CropTarget
    ) async throws -> (options: FocalOptions, saved: CropOverride?) {
        guard let overrides, options.crop.needsDetection, let id = identity.contentID else { return (options, nil) }
        var options = options
        let found: CropOverride?
        do {
            found = try await overrides.override(image: id, ratio: target.ratio)
        } catch is SavedCropsUnavailable {
            options.savedCropsUnknown = true
            counters.withLock { $0.savedCropsUnknown += 1 }
            return (options, nil)
        }
        guard let saved = found else { return (options, nil) }
        options.crop.override = .region(saved.crop)
        options.savedCropRevision = saved.revision
        return (options, saved)
    }

    /// The crop options with `SavedCropRule` applied, when a saved crop decides this request.
    func savedCropApplied(_ options: FocalOptions, target: CropTarget, imageSize: PixelSize) -> CropOptions {
        guard options.savedCropRevision != nil, case let .region(saved)? = options.crop.override else { return options.crop }
        return SavedCropRule.applied(saved, to: options.crop, target: target, imageSize: imageSize, maxUpscale: configuration.limits.maxUpscale)
    }

    // MARK: - Analysis

    /// Opens an image and finds its subjects (from the cache when this image was seen before).
    /// It is admitted as a job (see the type's notes), unless it runs inside one already.
    /// - Parameters:
    ///   - input: A file, bytes or an http(s) URL.
    ///   - accuracy: Detection speed/accuracy; default `.fast`.
    ///   - detect: Whether to run detectors at all; default `true`.
    ///   - scope: `.everything` (default) runs every detector; `.crop` only those whose subjects a
    ///     crop could use, as `crop` does.
    ///   - page: The page (from 1) a crop's `page(n)` picks; default nil: as a crop without it.
    ///   - orient: The turn a crop's `orient` asks for; default nil: none.
    /// - Throws: `FetchError`, `ImagingError` for unreadable input, `DetectionError` for missing
    ///   models, `NativeWorkPool.Overloaded`, `CancellationError`.
    public func analyze(
        _ input: ImageInput, accuracy: Accuracy = .fast, detect: Bool = true, scope: DetectionScope = .everything, page: Int? = nil,
        orient: Int? = nil
    ) async throws -> Analysis {
        var options = FocalOptions(accuracy: accuracy)
        options.crop.detect = detect
        options.page = page
        options.orient = orient
        if Admission.current != nil { return try await analyzeAdmitted(input, options: options, scope: scope) }
        return try await admission.run { [options] in try await analyzeAdmitted(input, options: options, scope: scope) }
    }

    /// Runs `body` as one admitted job (refused at once when the gate is full), so that tools and
    /// services built on the pipeline bound their own native work the same way.
    /// - Parameter bytes: Memory the work is known to hold besides the job's base; default 0.
    /// - Throws: `NativeWorkPool.Overloaded`, or what `body` throws.
    package func admitted<T: Sendable>(bytes: Int = 0, _ body: () async throws -> T) async throws -> T {
        try await admission.run {
            try Admission.reserve(bytes)
            return try await body()
        }
    }

    private func analyzeAdmitted(_ input: ImageInput, options: FocalOptions, scope: DetectionScope) async throws -> Analysis {
        var job = CropJob(input: input, rule: nil, options: options, detectors: detectorSignature(options.accuracy), scopes: [scope])
        job.identify = options.crop.detect && configuration.detectionCacheEntries > 0
        try await run(&job, Self.analysisSteps)
        guard let image = job.image else { throw ImagingError(.internalFailure, "the analysis opened no image", source: input.description) }
        var analysis = Analysis(image: image, subjects: job.subjects?[scope] ?? [])
        analysis.contentID = job.identity?.contentID
        return analysis
    }

    /// Brings an input into memory when it needs to be (a URL is fetched; a file without an
    /// identity is read, so that it is read once for its identity and its pixels) and identifies
    /// it by content when it has no identity yet, through its reader (`sourceReaders`). Runs
    /// inside an admitted job: the bytes are reserved on its pass as they arrive.
    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool = true) async throws -> (ImageInput.Location, ImageIdentity?) {
        try await reader(of: input.location).fetched(input, identity: identity, identify: identify, in: self)
    }

    /// The identity an input brings: its content ID, else its cache name.
    static func givenIdentity(_ input: ImageInput) -> ImageIdentity? {
        input.contentID.flatMap { ImageIdentity(contentID: $0) } ?? input.cacheName.map { ImageIdentity(cacheName: $0) }
    }

    /// Opens an input's header and reserves the memory its decode is estimated to need on the
    /// current job's pass (less the encoded bytes, reserved when they were read or fetched).
    /// - Parameter identifiedAs: The content ID the job identified the input by, if any: an
    ///   object read now must still be that version.
    func open(_ given: ImageInput.Location, page: Int? = nil, turn: Int = 0, identifiedAs expected: String? = nil) async throws -> SourceImage {
        // An object identified by its ETag and not read yet is read now, still that version.
        let location = try await reader(of: given).readable(given, identifiedAs: expected, in: self)
        let limits = configuration.limits
        let image = try await pool.run { () throws -> SourceImage in
            switch location {
            case let .file(path): try SourceImage.open(path: path, limits: limits, page: page, turn: turn)
            case let .data(data, name): try SourceImage.open(data: data, name: name, limits: limits, page: page, turn: turn)
            default: throw ImagingError(.internalFailure, "\(location) was not read before it was opened")
            }
        }
        var held = 0
        if case let .data(data, _) = location { held = data.count }
        try Admission.reserve(max(0, image.decodeBytes - held))
        return image
    }

    // MARK: - Rendering

    /// Renders and encodes a planned crop.
    /// - Parameters:
    ///   - image: The opened image the plan is for.
    ///   - plan: The crop and output size.
    ///   - format: The output encoding.
    ///   - quality: JPEG and WebP quality 1...100; default 85.
    ///   - flip: Mirroring of the output; default none.
    /// - Throws: `ImagingError` when the image turns out corrupt or cannot be encoded.
    public func render(_ image: SourceImage, plan: CropPlan, format: ImageFormat, quality: Int = 85, flip: Flip = []) async throws -> Data {
        try await render(image, plan: plan, settings: EncodeSettings(format: format, quality: quality, flip: flip))
    }

    /// Renders and encodes a planned crop with `settings`.
    func render(_ image: SourceImage, plan: CropPlan, settings: EncodeSettings) async throws -> Data {
        counters.withLock { $0.renders += 1 }
        return try await pool.run { () throws -> Data in
            try image.encode(crop: plan.crop, to: plan.outputSize, settings: settings)
        }
    }

    /// Renders and encodes a planned crop with `transform` applied to its pixels first (a
    /// redaction): rendered into memory at the output's size, as the flip path renders.
    func render(_ image: SourceImage, plan: CropPlan, settings: EncodeSettings, transform: @escaping PixelTransform) async throws -> Data {
        counters.withLock { $0.renders += 1 }
        return try await pool.run { () throws -> Data in
            try transform(try image.render(crop: plan.crop, to: plan.outputSize)).encode(settings)
        }
    }

    /// `boxes` (in pixels of the oriented image) where they fall in the output of `plan`,
    /// rounded outwards.
    static func outputRegions(_ boxes: [Box], plan: CropPlan) -> [PixelRect] {
        outputRegions(boxes, crop: plan.crop, output: plan.outputSize)
    }

    /// `boxes` (pixels of the image) in pixels of an output of `output` cut from `crop`.
    static func outputRegions(_ boxes: [Box], crop: PixelRect, output: PixelSize) -> [PixelRect] {
        let (sx, sy) = (Double(output.width) / Double(crop.width), Double(output.height) / Double(crop.height))
        return boxes.map { box in
            let left = ((box.x - Double(crop.x)) * sx).rounded(.down), top = ((box.y - Double(crop.y)) * sy).rounded(.down)
            let right = ((box.x + box.width - Double(crop.x)) * sx).rounded(.up), bottom = ((box.y + box.height - Double(crop.y)) * sy).rounded(.up)
            return PixelRect(x: Int(saturating: left), y: Int(saturating: top), width: Int(saturating: right - left), height: Int(saturating: bottom - top))
        }
    }

    /// Runs blocking work on the pipeline's native pool (for tools built on the pipeline).
    package func runNative<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await pool.run(work)
    }

    /// The caller's placeholder, centre-cropped to the target by the crop's own steps: the
    /// request's effects, overlays, fill and encoding apply to it; its crop options do not (they
    /// were for the photo). Not identified, so neither looked up nor stored.
    private func placeholder(_ bytes: Data, sizedBy rule: TargetRule, options: FocalOptions, reason: any Error) async throws -> CropResult {
        var options = options
        options.crop = CropOptions(detect: false)
        options.fallback = .error
        var job = CropJob(input: .data(bytes, name: "placeholder"), rule: rule, options: options, detectors: detectorSignature(options.accuracy))
        job.wantsResult = true
        job.identify = false
        try await job.clock.timing { try await run(&job, Self.cropSteps) }
        guard var result = job.result else {
            throw ImagingError(.internalFailure, "the placeholder's steps made no result", source: "placeholder")
        }
        result.origin = .placeholder(reason: "\(reason)")
        result.key = nil
        result.detected = []
        result.timings = job.clock.timings
        counters.withLock { $0.fallbacks += 1 }
        return result
    }

    // MARK: - Caches

    /// A cached result from memory, else from disk (then kept in memory too).
    func cached(_ key: ResultKey) async -> CropResult? {
        if let hit = results.result(for: key) {
            counters.withLock { $0.memoryHits += 1 }
            return hit.from(.memoryCache)
        }
        counters.withLock { $0.memoryMisses += 1 }
        guard let disk else { return nil }
        let found = try? await pool.run { disk.read(key) }
        guard let found else {
            counters.withLock { $0.diskMisses += 1 }
            return nil
        }
        counters.withLock { $0.diskHits += 1 }
        results.store(found.from(.fresh), for: key)
        return found
    }

    func store(_ result: CropResult, for key: ResultKey) async {
        results.store(result, for: key)
        guard let disk else { return }
        _ = try? await pool.run { disk.write(result, for: key) }
    }
}
