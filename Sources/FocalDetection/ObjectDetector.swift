internal import CFocalOpenCV
public import FocalCore
internal import FocalRuntime

/// Finds cats, dogs and people with YOLOv4-tiny (Darknet, COCO) through OpenCV DNN.
public final class ObjectDetector: SubjectDetecting {
    /// The network description's file name in the model folder.
    public static let configFile = "yolov4-tiny.cfg"
    /// The weights' file name in the model folder.
    public static let weightsFile = "yolov4-tiny.weights"

    /// COCO class ids (0-based) of the kinds this detector reports, and their group: people
    /// alone (0), cats and dogs together (1), scored as objectness × (p(cat) + p(dog)).
    static let classes: [(id: Int32, kind: SubjectKind, group: Int32)] = [(0, .person, 0), (15, .cat, 1), (16, .dog, 1)]

    /// Minimum score per kind: a pet's is compared with the threshold of the kind it is named.
    public let thresholds: [SubjectKind: Double]
    /// Speed/accuracy setting: the passes run.
    public let accuracy: Accuracy
    private let nets: NetPool

    /// The default thresholds: person 0.3, cat 0.25, dog 0.25 (a pet's score is its objectness
    /// times p(cat) + p(dog), so an animal the network cannot tell apart still counts).
    public static let defaultThresholds: [SubjectKind: Double] = [.person: 0.3, .cat: 0.25, .dog: 0.25]

    public var identifier: String { Self.identifier(accuracy: accuracy, thresholds: thresholds) }

    /// The identifier a detector with these settings has, without loading anything.
    public static func identifier(accuracy: Accuracy, thresholds: [SubjectKind: Double]) -> String {
        let t = classes.map { "\($0.kind.rawValue)=\(thresholds[$0.kind] ?? 1)" }.joined(separator: ",")
        let passes = Self.passes(accuracy).map { "\($0)" }.joined(separator: ";")
        return "yolov4-tiny/\(inputSize(accuracy))/\(passes)/\(t)"
    }

    /// The network input side: 288, stretched. Subjects that fill a larger input score low (the
    /// largest anchor is 344 × 319), and 288 found more pets on close-ups and avatars than 416 or
    /// 608 at less than half the cost.
    static func inputSize(_ accuracy: Accuracy) -> Int { 288 }

    /// The passes run, as the fraction of grey border around the image: `.fast` one plain pass;
    /// `.accurate` adds a pass with a border, for animals that fill the frame.
    static func passes(_ accuracy: Accuracy) -> [Double] { accuracy == .fast ? [0] : [0, 0.125] }

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
        let ids = Self.classes.map(\.id), groups = Self.classes.map(\.group)
        // A group keeps what reaches the lowest threshold of its kinds; each pet is then held to
        // the threshold of the kind it is named.
        let groupThresholds = [0, 1].map { group in
            Float(Self.classes.filter { $0.group == group }.map { thresholds[$0.kind] ?? 1 }.min() ?? 1)
        }
        let pads = Self.passes(accuracy)
        let size = Int32(Self.inputSize(accuracy))
        let (width, height, stride) = try image.cGeometry()
        let count = try nets.with { (net) throws(DetectionError) -> Int32 in
            let (count, text) = withErrorText { err, len in
                image.bytes.withUnsafeBufferPointer { pixels in
                    boxes.withUnsafeMutableBufferPointer { out in
                        focal_cv_yolo_detect(
                            net, pixels.baseAddress, pixels.count, width, height, stride, size, pads, Int32(pads.count),
                            ids, groups, Int32(ids.count), groupThresholds, Int32(groupThresholds.count), 0.45,
                            out.baseAddress, Int32(capacity), err, len)
                    }
                }
            }
            if count < 0 { throw DetectionError(.detectionFailed, "object detection failed", cause: text) }
            return count
        }
        return boxes.prefix(Int(count)).compactMap { box -> Subject? in
            guard let kind = Self.classes.first(where: { $0.id == box.label })?.kind,
                Double(box.score) >= thresholds[kind] ?? 1
            else { return nil }
            return Subject(kind: kind, box: box.geometry, confidence: Double(box.score))
        }
    }
}
