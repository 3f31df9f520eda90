public import FocalCore
public import FocalDetection

/// One stage of detection, declared once: its detectors, the kinds it finds, when it runs (given
/// what earlier stages found, the scope and the image), its identifier for cache keys, its place
/// on the background model loader. The pipeline runs its stages in order (`DetectionStage.builtIn`,
/// then a library user's own), the detection cache keeps what each found by its `id`, and the
/// kinds it finds rank by their rows of the kind table (`SubjectKindTraits`).
public struct DetectionStage: Sendable {
    /// How a job uses a stage.
    public enum Use: Sendable {
        /// It does not run.
        case skipped
        /// It runs only to list everything (`focal detect`, `meta/`): a crop does not use it.
        case listed
        /// A crop uses what it finds.
        case cropped
    }

    /// What a stage decides by.
    public struct Context: Sendable {
        /// What the stages before found.
        public let found: [Subject]
        /// The oriented image size.
        public let imageSize: PixelSize
        /// Whether the job lists everything (`.everything`) rather than what a crop uses.
        public let everything: Bool
    }

    /// A stage's detectors for one accuracy, loaded, and how to ready their models ahead (for
    /// an image size, at the stage's place on the background loader).
    struct Loaded: Sendable {
        let detectors: [any SubjectDetecting]
        let prepare: @Sendable (PixelSize, BackgroundModelLoads.Priority) -> Void
    }

    /// Its name in cache keys and statistics: `faces`, `objects`, `saliency`, or a user's.
    public let id: String
    /// The kinds it finds.
    public let kinds: [SubjectKind]
    /// Its place on the background model loader (lower first; the runtime is 0).
    public let loadOrder: Int
    /// When it runs.
    let use: @Sendable (Context) -> Use
    /// Its detectors for an accuracy, under a configuration; nil when the configuration turns it off.
    let load: @Sendable (Accuracy, FocalConfiguration) throws(DetectionError) -> Loaded?
    /// Its part of the detector signature (cache keys), without loading anything; nil when off.
    let identifier: @Sendable (Accuracy, FocalConfiguration) -> String?

    /// A stage of a library user's own: one detector, with kinds of its own (register their rows
    /// with `SubjectKindTraits.register` to rank and show them). Pass it to `FocalPipeline(stages:)`:
    /// it runs after the faces, before the objects.
    /// - Parameters:
    ///   - detector: The detector; its `identifier` is the stage's, in cache keys.
    ///   - kinds: The kinds it finds; default none said. Their registered rows' ranking is part
    ///     of the result keys of the pipelines that run the stage.
    ///   - use: When it runs, given what the stages before found; default always, for crops.
    public static func custom(
        _ detector: any SubjectDetecting, kinds: [SubjectKind] = [], use: @escaping @Sendable (Context) -> Use = { _ in .cropped }
    ) -> DetectionStage {
        DetectionStage(
            id: "custom:" + detector.identifier, kinds: kinds, loadOrder: 3, use: use,
            load: { _, _ in Loaded(detectors: [detector], prepare: { _, _ in }) }, identifier: { _, _ in detector.identifier })
    }

    /// A face scored at least this is taken for a person's without asking the object detector.
    static let sureFaceScore = 0.9

    /// Faces (YuNet): always, for crops.
    public static let faces = DetectionStage(
        id: "faces", kinds: [.face], loadOrder: 1, use: { _ in .cropped },
        load: { accuracy, configuration throws(DetectionError) in
            let folder = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: FaceDetector.modelFile)
            let faces = try FaceDetector(models: folder, accuracy: accuracy, threshold: configuration.faceThreshold, inference: configuration.inference)
            return Loaded(detectors: [faces]) { size, priority in faces.prepare(imageSize: size, priority: priority) }
        },
        identifier: { accuracy, configuration in
            FaceDetector.identifier(
                accuracy: accuracy, threshold: configuration.faceThreshold, precision: FaceDetector.precision(settings: configuration.inference))
        })

    /// The 80 classes of COCO (YOLO): cats, dogs and people for a crop when no face was found, or
    /// a pet could still win (it could be `SubjectSelection.petDominance` times the largest face,
    /// or a face may be an animal's own: YuNet fires on dogs at 0.75–0.85, and the pet-face rule
    /// needs the animal's box to tell); listed for everything, which a crop that names kinds
    /// reads (`kinds(truck)`).
    public static let objects = DetectionStage(
        id: "objects", kinds: COCOClasses.kinds, loadOrder: 2,
        use: { context in
            let faces = context.found.filter { $0.kind.traits.strategy == .faces }
            let largestFace = faces.map(\.box.area).max() ?? 0
            let petCouldWin = largestFace * SubjectSelection.petDominance <= Double(context.imageSize.area)
                || faces.contains { $0.confidence < sureFaceScore }
            if faces.isEmpty || petCouldWin { return .cropped }
            return context.everything ? .listed : .skipped
        },
        load: { accuracy, configuration throws(DetectionError) in
            guard configuration.detectObjects else { return nil }
            let folder = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: ObjectDetector.modelFile)
            let objects = try ObjectDetector(
                models: folder, accuracy: accuracy, thresholds: configuration.objectThresholds, inference: configuration.inference)
            return Loaded(detectors: [objects]) { _, priority in objects.prepare(priority: priority) }
        },
        identifier: { accuracy, configuration in
            guard configuration.detectObjects else { return nil }
            let precision = ObjectDetector.precision(models: configuration.modelsPath, settings: configuration.inference)
            return ObjectDetector.identifier(accuracy: accuracy, thresholds: configuration.objectThresholds, precision: precision)
        })

    /// The salient region (spectral residual): for a crop when no face was found (it also places
    /// a pet or person larger than the crop); listed for everything.
    public static let saliency = DetectionStage(
        id: "saliency", kinds: [.saliency], loadOrder: 4,
        use: { context in
            if !context.found.contains(where: { $0.kind.traits.strategy == .faces }) { return .cropped }
            return context.everything ? .listed : .skipped
        },
        load: { _, configuration in
            configuration.detectSaliency ? Loaded(detectors: [SaliencyDetector()], prepare: { _, _ in }) : nil
        },
        identifier: { _, configuration in configuration.detectSaliency ? SaliencyDetector().identifier : nil })

    /// The built-in stages, in the order they run: faces, objects, saliency. A pipeline runs a
    /// library user's own stages after the faces (`inOrder(own:)`).
    public static let builtIn: [DetectionStage] = [faces, objects, saliency]

    /// Whether it finds faces: such stages run before a library user's own, which see them.
    var findsFaces: Bool { kinds.contains { $0.traits.strategy == .faces } }

    /// The stages a pipeline runs: the built-in ones that find faces, then `own` (so they see
    /// the faces), then the other built-in ones.
    static func inOrder(own: [DetectionStage]) -> [DetectionStage] {
        builtIn.filter(\.findsFaces) + own + builtIn.filter { !$0.findsFaces }
    }
}
