internal import CFocalInference
public import FocalCore
internal import FocalRuntime

/// Finds faces with YuNet (2023mar, MIT) through OpenVINO.
public final class FaceDetector: SubjectDetecting {
    /// The model file's name in the model folder.
    public static let modelFile = "face_detection_yunet_2023mar.onnx"

    /// Detections below this score are dropped.
    public let threshold: Double
    /// Speed/accuracy setting: the proxy size.
    public let accuracy: Accuracy
    private let path: String
    private let settings: InferenceSettings

    public var identifier: String { Self.identifier(accuracy: accuracy, threshold: threshold) }

    /// The identifier a detector with these settings has, without loading anything.
    public static func identifier(accuracy: Accuracy, threshold: Double) -> String {
        "yunet-2023mar-ov/\(accuracy.faceLongSide)/\(threshold)"
    }

    /// Finds the model in `models`; it is compiled on first use (once per process).
    /// - Parameters:
    ///   - models: The model folder; see `ModelDirectory`.
    ///   - accuracy: `.fast` (default) or `.accurate`.
    ///   - threshold: Minimum score 0...1; default 0.6.
    ///   - inference: Parallel inferences, threads and the compiled-model cache; default
    ///     `InferenceSettings()`.
    /// - Throws: `DetectionError.modelMissing` when the file is not there.
    public init(
        models: ModelDirectory, accuracy: Accuracy = .fast, threshold: Double = 0.6, inference: InferenceSettings = InferenceSettings()
    ) throws(DetectionError) {
        path = try ModelDirectory.locate(explicit: models.path, containing: Self.modelFile).file(Self.modelFile)
        self.accuracy = accuracy
        self.threshold = threshold
        settings = inference
    }

    /// The compiled model, shared by every face detector of the process with the same settings.
    private func net() throws(DetectionError) -> CompiledNet {
        let (path, settings) = (path, settings)
        return try CompiledNet.shared(key: "yunet|" + path, settings: settings) { runtime, err, len in
            focal_ov_yunet_compile(runtime, path, Int32(settings.parallel), Int32(settings.threadsPerInference), err, len)
        }
    }

    /// Finds faces; small images are scaled up to the proxy size, since YuNet misses faces under
    /// about 20 px.
    public func detect(_ request: DetectionRequest) async throws -> [Subject] {
        let proxy = try await request.pixels(longSide: accuracy.faceLongSide, enlarge: true)
        return try await request.runBlocking { try self.detectNow(in: proxy) }
            .map { Subject(kind: .face, box: request.toImage($0.box, from: proxy), confidence: $0.confidence) }
    }

    /// Finds faces in `image` on the calling thread; boxes in its pixels.
    public func detectNow(in image: PixelBuffer) throws(DetectionError) -> [Subject] {
        let capacity = 512
        var boxes = [focal_ov_box](repeating: focal_ov_box(), count: capacity)
        let threshold = Float(self.threshold)
        let (width, height, stride) = try image.cGeometry()
        let count = try net().with { (session) throws(DetectionError) -> Int32 in
            let (count, text) = withErrorText { err, len in
                image.bytes.withUnsafeBufferPointer { pixels in
                    boxes.withUnsafeMutableBufferPointer { out in
                        focal_ov_yunet_detect(
                            session, pixels.baseAddress, pixels.count, width, height, stride,
                            threshold, 0.3, out.baseAddress, Int32(capacity), err, len)
                    }
                }
            }
            if count < 0 { throw DetectionError(.detectionFailed, "face detection failed", cause: text) }
            return count
        }
        return boxes.prefix(Int(count)).map { Subject(kind: .face, box: $0.geometry, confidence: Double($0.score)) }
    }
}

extension focal_ov_box {
    var geometry: Box { Box(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
}
