internal import CFocalInference
public import FocalCore
internal import FocalRuntime
import Foundation
import Synchronization

/// Finds the 80 classes of COCO (`COCOClasses`: people, cats, dogs, cars, trucks, bicycles,
/// horses…) with YOLOv4-tiny (Darknet) through OpenVINO.
public final class ObjectDetector: SubjectDetecting {
    /// The model's file name in the model folder: the Darknet network converted to ONNX by
    /// `focalscripts.darknet_onnx` at setup and given a fixed 8-bit input of `inputSize` by
    /// `focalscripts.onnx_input`.
    public static let modelFile = "yolov4-tiny-288.onnx"
    /// The same network in int8 (OpenVINO IR), which `scripts/setup.sh models` makes with NNCF's
    /// post-training quantization calibrated on the fixture photos (`focalscripts.quantize`): the
    /// `.int8` precision, used when it is in the folder. It measured lossless on the development
    /// and stress sets, and 2.7x faster than fp32 on one thread with AVX-512 VNNI.
    public static let int8ModelFile = "yolov4-tiny-288-int8.xml"
    /// The precisions it prefers, fastest first: int8 (where its file is), then bf16, then fp32.
    public static let precisionPreference: [InferencePrecision] = [.int8, .bf16, .fp32]
    /// The file that describes the model's output heads (anchors, `scale_x_y`, classes), written
    /// by the converter beside it.
    public static let headsFile = "yolov4-tiny.heads.json"

    /// COCO class ids (0-based) of the kinds this detector reports, and their group: cats and
    /// dogs together (scored as objectness × (p(cat) + p(dog))), every other class alone.
    static let classes: [(id: Int32, kind: SubjectKind, group: Int32)] = {
        var groups: [SubjectKind: Int32] = [.cat: 1, .dog: 1]
        var next: Int32 = 0
        return COCOClasses.kinds.enumerated().map { index, kind in
            if groups[kind] == nil {
                if next == 1 { next += 1 }
                groups[kind] = next
                next += 1
            }
            return (Int32(index), kind, groups[kind] ?? 0)
        }
    }()

    /// How many groups `classes` makes.
    static let groupCount = Int((classes.map(\.group).max() ?? 0) + 1)

    /// Minimum score per kind: a pet's is compared with the threshold of the kind it is named.
    public let thresholds: [SubjectKind: Double]
    /// Speed/accuracy setting: the passes run.
    public let accuracy: Accuracy
    /// The precision it runs in (`precision(models:settings:)`).
    public let precision: InferencePrecision
    private let modelPath: String
    private let heads: [focal_ov_yolo_head]
    private let classCount: Int32
    private let settings: InferenceSettings
    /// Each group's threshold: the lowest of its classes' (a pet is then held to its own kind's).
    private let groupThresholds: [Float]

    /// The default thresholds: person 0.3, cat 0.25, dog 0.25 (a pet's score is its objectness
    /// times p(cat) + p(dog), so an animal the network cannot tell apart still counts); every
    /// other class `otherThreshold`.
    public static let defaultThresholds: [SubjectKind: Double] = [.person: 0.3, .cat: 0.25, .dog: 0.25]
    /// The threshold of a class `thresholds` does not list: 0.3, as people.
    public static let otherThreshold = 0.3

    public var identifier: String { Self.identifier(accuracy: accuracy, thresholds: thresholds, precision: precision) }

    /// The least score that counts for `kind` under `thresholds`.
    static func threshold(_ kind: SubjectKind, in thresholds: [SubjectKind: Double]) -> Double {
        thresholds[kind] ?? (defaultThresholds[kind] == nil ? otherThreshold : 1)
    }

    /// The identifier a detector with these settings has, without loading anything.
    /// - Parameter precision: The precision it runs in (`precision(models:settings:)`); default fp32.
    public static func identifier(accuracy: Accuracy, thresholds: [SubjectKind: Double], precision: InferencePrecision = .fp32) -> String {
        // People and pets by name, then every other class of COCO at its threshold.
        let named = [SubjectKind.person, .cat, .dog].map { "\($0.rawValue)=\(threshold($0, in: thresholds))" }
        let others = thresholds.filter { defaultThresholds[$0.key] == nil }.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }
        let t = (named + ["coco80=\(otherThreshold)"] + others).joined(separator: ",")
        let passes = Self.passes(accuracy).map { "\($0)" }.joined(separator: ";")
        return "yolov4-tiny-ov/\(precision.identifierPart)\(inputSize(accuracy))/\(passes)/\(t)"
    }

    /// The precision a detector on the model folder found from `models` (as `init` finds it) runs
    /// in with `settings`: the first of `precisionPreference` they allow and the CPU runs, int8 only
    /// when its file is there (looked for once per folder).
    public static func precision(models: String?, settings: InferenceSettings) -> InferencePrecision {
        InferencePrecision.choose(precisionPreference, allowed: settings.precisions) { $0 != .int8 || hasInt8Model(models: models) }
    }

    private static func hasInt8Model(models: String?) -> Bool {
        let key = models ?? ""
        if let known = int8Folders.withLock({ $0[key] }) { return known }
        let found = (try? ModelDirectory.locate(explicit: models, containing: modelFile))
            .map { FileManager.default.fileExists(atPath: $0.file(int8ModelFile)) } ?? false
        int8Folders.withLock { $0[key] = found }
        return found
    }

    private static let int8Folders = Mutex<[String: Bool]>([:])

    /// The network input side: 288, stretched. Subjects that fill a larger input score low (the
    /// largest anchor is 344 × 319), and 288 found more pets on close-ups and avatars than 416 or
    /// 608 at less than half the cost.
    static func inputSize(_ accuracy: Accuracy) -> Int { 288 }

    /// The passes run, as the fraction of grey border around the image: `.fast` one plain pass;
    /// `.accurate` adds a pass with a border, for animals that fill the frame.
    static func passes(_ accuracy: Accuracy) -> [Double] { accuracy == .fast ? [0] : [0, 0.125] }

    /// Finds the model in `models`; it is compiled on first use (once per process).
    /// - Parameters:
    ///   - models: The model folder; see `ModelDirectory`.
    ///   - accuracy: `.fast` (default) or `.accurate`.
    ///   - thresholds: Minimum score per kind; default `defaultThresholds`.
    ///   - inference: Parallel inferences, threads and the compiled-model cache; default
    ///     `InferenceSettings()`.
    /// - Throws: `DetectionError`: `models.missing` when a file is not there, `models.invalid` when
    ///   the heads file is malformed.
    public init(
        models: ModelDirectory, accuracy: Accuracy = .fast, thresholds: [SubjectKind: Double] = ObjectDetector.defaultThresholds,
        inference: InferenceSettings = InferenceSettings()
    ) throws(DetectionError) {
        let folder = try ModelDirectory.locate(explicit: models.path, containing: Self.modelFile)
        precision = Self.precision(models: models.path, settings: inference)
        modelPath = folder.file(precision == .int8 ? Self.int8ModelFile : Self.modelFile)
        let headsPath = try ModelDirectory.locate(explicit: models.path, containing: Self.headsFile).file(Self.headsFile)
        let description = try YOLOHeads.read(headsPath)
        heads = description.cHeads
        classCount = Int32(description.classes)
        self.accuracy = accuracy
        self.thresholds = thresholds
        settings = inference
        groupThresholds = (0..<Int32(Self.groupCount)).map { group in
            Float(Self.classes.filter { $0.group == group }.map { Self.threshold($0.kind, in: thresholds) }.min() ?? 1)
        }
    }

    /// The compiled model, shared by every object detector of the process with the same settings.
    private func net() throws(DetectionError) -> CompiledNet {
        let (path, heads, classes, settings) = (modelPath, heads, classCount, settings)
        let bf16: Int32 = precision == .bf16 ? 1 : 0
        return try CompiledNet.shared(key: netKey, settings: settings) { runtime, err, len in
            heads.withUnsafeBufferPointer { heads in
                focal_ov_yolo_compile(
                    runtime, path, heads.baseAddress, Int32(heads.count), classes, Int32(settings.parallel),
                    Int32(settings.threadsPerInference), bf16, err, len)
            }
        }
    }

    /// Queues compiling (or loading) the model on the background loader (`BackgroundModelLoads`,
    /// after the runtime and the face model), so that it is ready when an image is decoded; does
    /// nothing once it is.
    /// - Parameter priority: Its place on the loader (its stage's load order); default 2.
    public func prepare(priority: BackgroundModelLoads.Priority = .init(2)) {
        CompiledNet.prepareInBackground(key: netKey, settings: settings, priority: priority) { () throws(DetectionError) in _ = try self.net() }
    }

    /// The compiled-net table's key: the model file and precision.
    private var netKey: String { "yolo|\(precision.rawValue)|" + modelPath }

    /// Finds the objects of every class.
    public func detect(_ request: DetectionRequest) async throws -> [Subject] {
        let proxy = try await request.pixels(longSide: accuracy.faceLongSide)
        return try await request.runBlocking { try self.detectNow(in: proxy) }
            .map { Subject(kind: $0.kind, box: request.toImage($0.box, from: proxy), confidence: $0.confidence) }
    }

    /// Finds the objects of every class in `image` on the calling thread; boxes in its pixels.
    public func detectNow(in image: PixelBuffer) throws(DetectionError) -> [Subject] {
        let capacity = 256
        var boxes = [focal_ov_box](repeating: focal_ov_box(), count: capacity)
        let ids = Self.classes.map(\.id), groups = Self.classes.map(\.group)
        // A group keeps what reaches the lowest threshold of its kinds (`groupThresholds`); each
        // pet is then held to the threshold of the kind it is named.
        let groupThresholds = self.groupThresholds
        let pads = Self.passes(accuracy)
        let size = Int32(Self.inputSize(accuracy))
        let (width, height, stride) = try image.cGeometry()
        // The network's own time, its input copied in and its output read out.
        let count = try StepClock.time("infer-objects") { () throws(DetectionError) -> Int32 in
            try net().with { (session) throws(DetectionError) -> Int32 in
                let (count, text) = withErrorText { err, len in
                    image.bytes.withUnsafeBufferPointer { pixels in
                        boxes.withUnsafeMutableBufferPointer { out in
                            focal_ov_yolo_detect(
                                session, pixels.baseAddress, pixels.count, width, height, stride, size, pads, Int32(pads.count),
                                ids, groups, Int32(ids.count), groupThresholds, Int32(groupThresholds.count), 0.45,
                                out.baseAddress, Int32(capacity), err, len)
                        }
                    }
                }
                if count < 0 { throw DetectionError(.detectionFailed, "object detection failed", cause: text) }
                return count
            }
        }
        return boxes.prefix(Int(count)).compactMap { box -> Subject? in
            guard box.label >= 0, Int(box.label) < Self.classes.count, Self.classes[Int(box.label)].id == box.label else { return nil }
            let kind = Self.classes[Int(box.label)].kind
            guard Double(box.score) >= Self.threshold(kind, in: thresholds) else { return nil }
            return Subject(kind: kind, box: box.geometry, confidence: Double(box.score))
        }
    }
}
