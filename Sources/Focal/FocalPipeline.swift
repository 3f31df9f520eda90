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
/// Blocking native work (decode, detect, encode) runs on `NativeWorkPool.shared`, never on
/// Swift's cooperative pool. A pipeline is safe to share between tasks.
public final class FocalPipeline: Sendable {
    /// The settings it was made with.
    public let configuration: FocalConfiguration
    /// Detectors that run beside the built-in face detector.
    public let extraDetectors: [any SubjectDetecting]
    private let faceDetectors = Mutex<[Accuracy: FaceDetector]>([:])
    private let pool: NativeWorkPool

    /// Creates a pipeline.
    /// - Parameters:
    ///   - configuration: Models, limits, thresholds; default `FocalConfiguration()`.
    ///   - detectors: Your own detectors, run beside the built-in ones; default none.
    ///   - pool: Where native work runs; default `NativeWorkPool.shared`.
    public init(
        configuration: FocalConfiguration = FocalConfiguration(), detectors: [any SubjectDetecting] = [],
        pool: NativeWorkPool = .shared
    ) {
        self.configuration = configuration
        self.extraDetectors = detectors
        self.pool = pool
    }

    /// Opens an image and finds its subjects.
    /// - Parameters:
    ///   - input: A file or bytes.
    ///   - accuracy: Detection speed/accuracy; default `.fast`.
    ///   - detect: Whether to run detectors at all; default `true`.
    /// - Throws: `ImagingError` for unreadable input, `DetectionError` for missing models.
    public func analyze(_ input: ImageInput, accuracy: Accuracy = .fast, detect: Bool = true) async throws -> Analysis {
        let limits = configuration.limits
        let image = try await pool.run { () throws(ImagingError) -> SourceImage in try input.open(limits: limits) }
        guard detect else { return Analysis(image: image, subjects: []) }
        let detectors: [any SubjectDetecting] = [try faceDetector(accuracy)] + extraDetectors
        var proxies: [ProxyKey: PixelBuffer] = [:]
        var subjects: [Subject] = []
        for detector in detectors {
            let side = detector.preferredLongSide, enlarge = detector.enlargesSmallImages
            let key = ProxyKey(longSide: side, enlarge: enlarge)
            let proxy: PixelBuffer
            if let cached = proxies[key] {
                proxy = cached
            } else {
                proxy = try await pool.run { () throws(ImagingError) -> PixelBuffer in
                    try image.proxy(longSide: side, enlarge: enlarge)
                }
                proxies[key] = proxy
            }
            let sx = Double(image.size.width) / Double(proxy.width)
            let sy = Double(image.size.height) / Double(proxy.height)
            for found in try await detector.detect(in: proxy) {
                var subject = found
                subject.box = found.box.scaled(x: sx, y: sy).clamped(to: image.size)
                if subject.box.area > 0 { subjects.append(subject) }
            }
        }
        return Analysis(image: image, subjects: subjects)
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
            try image.render(crop: plan.crop, to: plan.outputSize).encode(format, quality: quality)
        }
    }

    /// Draws the subjects, the padded region and the crop on a copy of the image, as PNG.
    /// - Parameters:
    ///   - analysis: The image and everything detected.
    ///   - plan: The crop to show.
    ///   - longSide: The overlay's long side in pixels; default 1024.
    public func debugOverlay(_ analysis: Analysis, plan: CropPlan, longSide: Int = 1024) async throws -> Data {
        try await pool.run { () throws(ImagingError) -> Data in
            try DebugOverlay(analysis: analysis, plan: plan).png(longSide: longSide)
        }
    }

    private struct ProxyKey: Hashable {
        let longSide: Int
        let enlarge: Bool
    }

    private func faceDetector(_ accuracy: Accuracy) throws -> FaceDetector {
        if let detector = faceDetectors.withLock({ $0[accuracy] }) { return detector }
        let models = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: FaceDetector.modelFile)
        let detector = try FaceDetector(models: models, accuracy: accuracy, threshold: configuration.faceThreshold)
        return faceDetectors.withLock { detectors in
            if let existing = detectors[accuracy] { return existing }
            detectors[accuracy] = detector
            return detector
        }
    }
}
