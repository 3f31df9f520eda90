import Foundation
import Synchronization

/// Crops images so that their subjects stay in view: open, detect, plan, render, encode.
///
/// ```swift
/// let pipeline = FocalPipeline()
/// let result = try await pipeline.crop(.file("team.jpg"), to: .size(width: 400, height: 400))
/// try result.data.write(to: URL(fileURLWithPath: "avatar.jpg"))
/// ```
///
/// Blocking native work (decode, detect, encode) runs on a `NativeWorkPool`, never on Swift's
/// cooperative pool. Subjects are cached by image content and detector settings, so several
/// crops of one image run the detectors once. A pipeline is safe to share between tasks.
public final class FocalPipeline: Sendable {
    /// The settings it was made with.
    public let configuration: FocalConfiguration
    /// Detectors that run beside the built-in ones.
    public let extraDetectors: [any SubjectDetecting]
    private let builtIn = Mutex<[Accuracy: [any SubjectDetecting]]>([:])
    private let pool: NativeWorkPool
    private let detectionCache: DetectionCache
    private let counters = Mutex(PipelineStatistics())

    /// Creates a pipeline.
    /// - Parameters:
    ///   - configuration: Models, limits, thresholds, caching; default `FocalConfiguration()`.
    ///   - detectors: Your own detectors, run beside the built-in ones; default none.
    ///   - pool: Where native work runs; default `NativeWorkPool.shared`.
    public init(
        configuration: FocalConfiguration = FocalConfiguration(), detectors: [any SubjectDetecting] = [],
        pool: NativeWorkPool = .shared
    ) {
        self.configuration = configuration
        self.extraDetectors = detectors
        self.pool = pool
        detectionCache = DetectionCache(capacity: configuration.detectionCacheEntries)
    }

    /// What the pipeline has done so far.
    public var statistics: PipelineStatistics { counters.withLock { $0 } }

    /// Opens an image and finds its subjects (from the cache when this content was seen before).
    /// - Parameters:
    ///   - input: A file or bytes.
    ///   - accuracy: Detection speed/accuracy; default `.fast`.
    ///   - detect: Whether to run detectors at all; default `true`.
    /// - Throws: `ImagingError` for unreadable input, `DetectionError` for missing models.
    public func analyze(_ input: ImageInput, accuracy: Accuracy = .fast, detect: Bool = true) async throws -> Analysis {
        let limits = configuration.limits
        let image = try await pool.run { () throws(ImagingError) -> SourceImage in try input.open(limits: limits) }
        guard detect else { return Analysis(image: image, subjects: []) }
        let detectors = try builtInDetectors(accuracy) + extraDetectors
        // The digest reads the whole input once more: skip it when nothing is cached.
        let content: String? = configuration.detectionCacheEntries <= 0 ? nil : try await pool.run {
            switch input {
            case let .file(path): ContentDigest.of(file: path)
            case let .data(data, _): ContentDigest.of(data)
            }
        }
        let key = content.map { DetectionCache.Key(content: $0, detectors: detectors.map(\.identifier).joined(separator: "+")) }
        if let key, let cached = detectionCache.subjects(for: key) {
            counters.withLock { $0.detectionCacheHits += 1 }
            return Analysis(image: image, subjects: cached)
        }
        counters.withLock { $0.detections += 1 }
        let subjects = try await runDetectors(detectors, on: image, name: input.description, accuracy: accuracy)
        if let key { detectionCache.store(subjects, for: key) }
        return Analysis(image: image, subjects: subjects)
    }

    /// Runs every detector side by side on shared proxies.
    private func runDetectors(
        _ detectors: [any SubjectDetecting], on image: SourceImage, name: String, accuracy: Accuracy
    ) async throws -> [Subject] {
        let proxies = ProxyCache(image: image, baseLongSide: accuracy.faceLongSide, pool: pool) { [self] in
            self.counters.withLock { $0.proxyDecodes += 1 }
        }
        let request = DetectionRequest(name: name, imageSize: image.size) { side, enlarge in
            try await proxies.pixels(longSide: side, enlarge: enlarge)
        }
        return try await withThrowingTaskGroup(of: (Int, [Subject]).self) { group in
            for (index, detector) in detectors.enumerated() {
                group.addTask { (index, try await detector.detect(request)) }
            }
            var found: [Int: [Subject]] = [:]
            for try await (index, subjects) in group { found[index] = subjects }
            // In detector order, so the result does not depend on which finished first.
            return detectors.indices.flatMap { found[$0] ?? [] }.filter { $0.box.area > 0 }
        }
    }

    /// Crops an image to a target, keeping its subjects in view, and encodes the result.
    /// - Parameters:
    ///   - input: A file or bytes.
    ///   - target: An exact output size or an aspect ratio.
    ///   - options: Crop, detection and encoding options; default `.default`.
    /// - Throws: `ImagingError`, `DetectionError` or `PlanningError`, each naming the problem.
    public func crop(_ input: ImageInput, to target: CropTarget, options: FocalOptions = .default) async throws -> CropResult {
        try target.validate()
        try options.crop.validate()
        let needsDetection = options.crop.detect && options.crop.override == nil
        let analysis = try await analyze(input, accuracy: options.accuracy, detect: needsDetection)
        let plan = try analysis.plan(target, options: options.crop)
        let data = try await render(analysis.image, plan: plan, format: options.format, quality: options.quality)
        return CropResult(data: data, format: options.format, plan: plan, detected: analysis.subjects)
    }

    /// Renders and encodes a planned crop.
    /// - Throws: `ImagingError` when the image turns out corrupt or cannot be encoded.
    public func render(_ image: SourceImage, plan: CropPlan, format: ImageFormat, quality: Int = 85) async throws -> Data {
        try await pool.run { () throws(ImagingError) -> Data in
            try image.encode(crop: plan.crop, to: plan.outputSize, format: format, quality: quality)
        }
    }

    /// Draws the subjects, the padded region and the crop on a copy of the image, as PNG.
    /// - Parameters:
    ///   - analysis: The image and everything detected.
    ///   - plan: The crop to show; nil draws the subjects alone.
    ///   - longSide: The overlay's long side in pixels; default 1024.
    public func debugOverlay(_ analysis: Analysis, plan: CropPlan?, longSide: Int = 1024) async throws -> Data {
        try await pool.run { () throws(ImagingError) -> Data in
            try DebugOverlay(analysis: analysis, plan: plan).png(longSide: longSide)
        }
    }

    /// The built-in detectors for `accuracy`, loaded once.
    private func builtInDetectors(_ accuracy: Accuracy) throws -> [any SubjectDetecting] {
        if let detectors = builtIn.withLock({ $0[accuracy] }) { return detectors }
        let explicit = configuration.modelsPath
        let faces = try ModelDirectory.locate(explicit: explicit, containing: FaceDetector.modelFile)
        var detectors: [any SubjectDetecting] = [
            try FaceDetector(models: faces, accuracy: accuracy, threshold: configuration.faceThreshold)
        ]
        if configuration.detectObjects {
            let objects = try ModelDirectory.locate(explicit: explicit, containing: ObjectDetector.weightsFile)
            detectors.append(try ObjectDetector(models: objects, accuracy: accuracy, thresholds: configuration.objectThresholds))
        }
        if configuration.detectSaliency { detectors.append(SaliencyDetector()) }
        return builtIn.withLock { cache in
            if let existing = cache[accuracy] { return existing }
            cache[accuracy] = detectors
            return detectors
        }
    }
}
