/// Process-wide settings of a pipeline: where models are, limits, detection and caching.
public struct FocalConfiguration: Sendable {
    /// The model folder; nil searches `$FOCAL_MODELS`, `./models` and the install prefix.
    public var modelsPath: String?
    /// Byte and pixel limits on inputs; default `ImageLimits.default`.
    public var limits: ImageLimits
    /// Minimum face score 0...1; default 0.75.
    public var faceThreshold: Double
    /// Minimum cat, dog and person scores; default `ObjectDetector.defaultThresholds`.
    public var objectThresholds: [SubjectKind: Double]
    /// Whether cats, dogs and people are detected (YOLOv4-tiny, about 60–110 ms an image);
    /// default `true`.
    public var detectObjects: Bool
    /// Whether the saliency fallback runs; default `true`.
    public var detectSaliency: Bool
    /// Images whose subjects are remembered (by content digest and detector settings); default 512.
    public var detectionCacheEntries: Int

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(
        modelsPath: String? = nil, limits: ImageLimits = .default, faceThreshold: Double = 0.75,
        objectThresholds: [SubjectKind: Double] = ObjectDetector.defaultThresholds, detectObjects: Bool = true,
        detectSaliency: Bool = true, detectionCacheEntries: Int = 512
    ) {
        self.modelsPath = modelsPath
        self.limits = limits
        self.faceThreshold = faceThreshold
        self.objectThresholds = objectThresholds
        self.detectObjects = detectObjects
        self.detectSaliency = detectSaliency
        self.detectionCacheEntries = detectionCacheEntries
    }
}
