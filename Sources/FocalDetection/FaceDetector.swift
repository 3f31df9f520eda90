internal import CFocalInference
public import FocalCore
internal import FocalRuntime

/// Finds faces with YuNet (2023mar, MIT) through OpenVINO.
///
/// The network runs at a fixed input size chosen by the proxy's shape: landscape (long side by
/// three quarters of it), square, or portrait, at the accuracy's long side. Each size is its own
/// model file (`modelFile(width:height:)`), written at setup by `focalscripts.onnx_input`, so that
/// OpenVINO loads it (or its compiled blob) with nothing to prepare, and is compiled on first use.
public final class FaceDetector: SubjectDetecting {
    /// The name of the model file for a `width` x `height` input.
    public static func modelFile(width: Int, height: Int) -> String { "yunet-2023mar-\(width)x\(height).onnx" }

    /// The model file that marks a model folder: the landscape input of `.fast`.
    public static let modelFile = modelFile(width: 512, height: 384)

    /// The input sizes `accuracy` uses: landscape, square, portrait.
    public static func inputSizes(_ accuracy: Accuracy) -> [PixelSize] {
        let long = accuracy.faceLongSide, short = (long * 3 / 4 + 31) / 32 * 32
        return [PixelSize(width: long, height: short), PixelSize(width: long, height: long), PixelSize(width: short, height: long)]
    }

    /// Every model file the detector may load, for all accuracies.
    public static var modelFiles: [String] {
        Accuracy.allCases.flatMap(inputSizes).map { modelFile(width: $0.width, height: $0.height) }
    }

    /// The smallest input of `accuracy` that holds a proxy of `size`, or nil when none does.
    package static func inputSize(for size: PixelSize, _ accuracy: Accuracy) -> PixelSize? {
        inputSizes(accuracy).filter { size.width <= $0.width && size.height <= $0.height }.min { $0.area < $1.area }
    }

    /// Detections below this score are dropped.
    public let threshold: Double
    /// Speed/accuracy setting: the proxy size.
    public let accuracy: Accuracy
    private let folder: ModelDirectory
    private let settings: InferenceSettings

    /// The precision it runs in (`precision(settings:)`).
    public let precision: InferencePrecision

    public var identifier: String { Self.identifier(accuracy: accuracy, threshold: threshold, precision: precision) }

    /// The identifier a detector with these settings has, without loading anything.
    /// - Parameter precision: The precision it runs in (`precision(settings:)`); default fp32.
    public static func identifier(accuracy: Accuracy, threshold: Double, precision: InferencePrecision = .fp32) -> String {
        "yunet-2023mar-ov/\(precision.identifierPart)\(accuracy.faceLongSide)x3:4,1:1,3:4/\(threshold)"
    }

    /// The precisions it prefers, fastest first: bf16, then fp32. Its int8 quantization (NNCF,
    /// calibrated like the object model's) moved boxes and scores on the development photos and
    /// ran no faster than fp32 with VNNI, so there is no int8 face model.
    public static let precisionPreference: [InferencePrecision] = [.bf16, .fp32]

    /// The precision a face detector runs in with `settings`: the first of `precisionPreference`
    /// they allow and the CPU runs.
    public static func precision(settings: InferenceSettings) -> InferencePrecision {
        InferencePrecision.choose(precisionPreference, allowed: settings.precisions)
    }

    /// Finds the model files in `models`; each is compiled on first use (once per process).
    /// - Parameters:
    ///   - models: The model folder; see `ModelDirectory`.
    ///   - accuracy: `.fast` (default) or `.accurate`.
    ///   - threshold: Minimum score 0...1; default 0.6.
    ///   - inference: Parallel inferences, threads and the compiled-model cache; default
    ///     `InferenceSettings()`.
    /// - Throws: `DetectionError` (`models.missing`) when a file of `accuracy` is not there.
    public init(
        models: ModelDirectory, accuracy: Accuracy = .fast, threshold: Double = 0.6, inference: InferenceSettings = InferenceSettings()
    ) throws(DetectionError) {
        folder = try ModelDirectory.locate(explicit: models.path, containing: Self.modelFile)
        for size in Self.inputSizes(accuracy) {
            _ = try ModelDirectory.locate(explicit: folder.path, containing: Self.modelFile(width: size.width, height: size.height))
        }
        self.accuracy = accuracy
        self.threshold = threshold
        settings = inference
        precision = Self.precision(settings: inference)
    }

    /// The compiled model for `input`, shared by every face detector of the process with the same
    /// settings.
    private func net(_ input: PixelSize) throws(DetectionError) -> CompiledNet {
        let path = folder.file(Self.modelFile(width: input.width, height: input.height))
        let settings = settings
        let bf16: Int32 = precision == .bf16 ? 1 : 0
        return try CompiledNet.shared(key: netKey(input), settings: settings) { runtime, err, len in
            focal_ov_yunet_compile(runtime, path, Int32(settings.parallel), Int32(settings.threadsPerInference), bf16, err, len)
        }
    }

    /// Queues compiling (or loading) the model an image of `imageSize` will use on the background
    /// loader (`BackgroundModelLoads`), so that it is ready when the image is decoded; does
    /// nothing once it is.
    /// - Parameter priority: Its place on the loader (its stage's load order); default 1.
    public func prepare(imageSize: PixelSize, priority: BackgroundModelLoads.Priority = .init(1)) {
        let proxy = imageSize.fitting(longSide: accuracy.faceLongSide, enlarge: true)
        guard let input = Self.inputSize(for: proxy, accuracy) else { return }
        CompiledNet.prepareInBackground(key: netKey(input), settings: settings, priority: priority) { () throws(DetectionError) in _ = try self.net(input) }
    }

    /// The compiled-net table's key for the model of `input`.
    private func netKey(_ input: PixelSize) -> String { "yunet|\(precision.rawValue)|" + folder.file(Self.modelFile(width: input.width, height: input.height)) }

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
        guard let input = Self.inputSize(for: PixelSize(width: image.width, height: image.height), accuracy) else {
            throw DetectionError(.detectionFailed, "face detection failed", cause: "a \(image.width)x\(image.height) image is larger than the face detector's input")
        }
        // The network's own time, its input copied in and its output read out.
        let count = try StepClock.time("infer-faces") { () throws(DetectionError) -> Int32 in
            try net(input).with { (session) throws(DetectionError) -> Int32 in
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
        }
        return boxes.prefix(Int(count)).map { Subject(kind: .face, box: $0.geometry, confidence: Double($0.score)) }
    }
}

extension focal_ov_box {
    var geometry: Box { Box(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }
}
