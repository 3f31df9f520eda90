internal import CFocalOpenCV
public import FocalCore
internal import FocalRuntime

/// Finds faces with YuNet (2023mar, MIT) through OpenCV DNN.
public final class FaceDetector: SubjectDetecting {
    /// The model file's name in the model folder.
    public static let modelFile = "face_detection_yunet_2023mar.onnx"

    /// Detections below this score are dropped.
    public let threshold: Double
    /// Speed/accuracy setting: the proxy size.
    public let accuracy: Accuracy
    private let nets: NetPool

    public var identifier: String { Self.identifier(accuracy: accuracy, threshold: threshold) }

    /// The identifier a detector with these settings has, without loading anything.
    public static func identifier(accuracy: Accuracy, threshold: Double) -> String {
        "yunet-2023mar/\(accuracy.rawValue)/\(threshold)"
    }

    /// Loads the model lazily from `models`.
    /// - Parameters:
    ///   - models: The model folder; see `ModelDirectory`.
    ///   - accuracy: `.fast` (default) or `.accurate`.
    ///   - threshold: Minimum score 0...1; default 0.6.
    /// - Throws: `DetectionError.modelMissing` when the file is not there.
    public init(models: ModelDirectory, accuracy: Accuracy = .fast, threshold: Double = 0.6) throws(DetectionError) {
        let path = try ModelDirectory.locate(explicit: models.path, containing: Self.modelFile).file(Self.modelFile)
        self.accuracy = accuracy
        self.threshold = threshold
        nets = NetPool { () throws(DetectionError) -> LoadedNet in
            let (net, text) = withErrorText { focal_cv_yunet_load(path, $0, $1) }
            guard let net else { throw DetectionError(.modelsInvalid, "cannot load \(path)", cause: text) }
            return LoadedNet(net)
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
        var boxes = [focal_cv_box](repeating: focal_cv_box(), count: capacity)
        let threshold = Float(self.threshold)
        let (width, height, stride) = try image.cGeometry()
        let count = try nets.with { (net) throws(DetectionError) -> Int32 in
            let (count, text) = withErrorText { err, len in
                image.bytes.withUnsafeBufferPointer { pixels in
                    boxes.withUnsafeMutableBufferPointer { out in
                        focal_cv_yunet_detect(
                            net, pixels.baseAddress, pixels.count, width, height, stride,
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

extension focal_cv_box {
    var geometry: Box { Box(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
}
