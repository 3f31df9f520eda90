internal import CFocalOpenCV
public import FocalCore
internal import FocalRuntime

/// Finds cats, dogs and people with YOLOv4-tiny (Darknet, COCO) through OpenCV DNN.
public final class ObjectDetector: SubjectDetecting {
    /// The network description's file name in the model folder.
    public static let configFile = "yolov4-tiny.cfg"
    /// The weights' file name in the model folder.
    public static let weightsFile = "yolov4-tiny.weights"

    /// COCO class ids (0-based) of the kinds this detector reports.
    static let classes: [(id: Int32, kind: SubjectKind)] = [(0, .person), (15, .cat), (16, .dog)]

    /// Minimum score per kind.
    public let thresholds: [SubjectKind: Double]
    /// Speed/accuracy setting: the network input size.
    public let accuracy: Accuracy
    private let nets: NetPool

    /// The default thresholds: person 0.3, cat 0.3, dog 0.45 (cats scored 0.33–0.37 on real
    /// photos, and a cat was once taken for a dog at 0.40).
    public static let defaultThresholds: [SubjectKind: Double] = [.person: 0.3, .cat: 0.3, .dog: 0.45]

    public var identifier: String { Self.identifier(accuracy: accuracy, thresholds: thresholds) }

    /// The identifier a detector with these settings has, without loading anything.
    public static func identifier(accuracy: Accuracy, thresholds: [SubjectKind: Double]) -> String {
        let t = classes.map { "\($0.kind.rawValue)=\(thresholds[$0.kind] ?? 1)" }.joined(separator: ",")
        return "yolov4-tiny/\(accuracy.rawValue)/\(t)"
    }

    /// The network input side: 416 for `.fast`, 608 for `.accurate`.
    public var inputSize: Int { accuracy == .fast ? 416 : 608 }

    /// Loads the model lazily from `models`.
    /// - Parameters:
    ///   - models: The model folder; see `ModelDirectory`.
    ///   - accuracy: `.fast` (default) or `.accurate`.
    ///   - thresholds: Minimum score per kind; default `defaultThresholds`.
    /// - Throws: `DetectionError.modelMissing` when a file is not there.
    public init(
        models: ModelDirectory, accuracy: Accuracy = .fast, thresholds: [SubjectKind: Double] = ObjectDetector.defaultThresholds
    ) throws(DetectionError) {
        let config = try ModelDirectory.locate(explicit: models.path, containing: Self.configFile).file(Self.configFile)
        let weights = try ModelDirectory.locate(explicit: models.path, containing: Self.weightsFile).file(Self.weightsFile)
        self.accuracy = accuracy
        self.thresholds = thresholds
        nets = NetPool { () throws(DetectionError) -> LoadedNet in
            let (net, text) = withErrorText { focal_cv_yolo_load(config, weights, $0, $1) }
            guard let net else { throw DetectionError(.modelsInvalid, "cannot load \(weights)", cause: text) }
            return LoadedNet(net)
        }
    }

    /// Finds cats, dogs and people.
    public func detect(_ request: DetectionRequest) async throws -> [Subject] {
        let proxy = try await request.pixels(longSide: accuracy.faceLongSide)
        return try await request.runBlocking { try self.detectNow(in: proxy) }
            .map { Subject(kind: $0.kind, box: request.toImage($0.box, from: proxy), confidence: $0.confidence) }
    }

    /// Finds cats, dogs and people in `image` on the calling thread; boxes in its pixels.
    public func detectNow(in image: PixelBuffer) throws(DetectionError) -> [Subject] {
        let capacity = 256
        var boxes = [focal_cv_box](repeating: focal_cv_box(), count: capacity)
        let ids = Self.classes.map(\.id)
        let limits = Self.classes.map { Float(thresholds[$0.kind] ?? 1) }
        let size = Int32(inputSize)
        let (width, height, stride) = try image.cGeometry()
        let count = try nets.with { (net) throws(DetectionError) -> Int32 in
            let (count, text) = withErrorText { err, len in
                image.bytes.withUnsafeBufferPointer { pixels in
                    boxes.withUnsafeMutableBufferPointer { out in
                        focal_cv_yolo_detect(
                            net, pixels.baseAddress, pixels.count, width, height, stride,
                            size, ids, limits, Int32(ids.count), 0.45, out.baseAddress, Int32(capacity), err, len)
                    }
                }
            }
            if count < 0 { throw DetectionError(.detectionFailed, "object detection failed", cause: text) }
            return count
        }
        return boxes.prefix(Int(count)).compactMap { box in
            Self.classes.first { $0.id == box.label }.map {
                Subject(kind: $0.kind, box: box.geometry, confidence: Double(box.score))
            }
        }
    }
}
