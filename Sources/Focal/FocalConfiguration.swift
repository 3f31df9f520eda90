/// Process-wide settings of a pipeline: where models are, limits, and detection.
public struct FocalConfiguration: Sendable {
    /// The model folder; nil searches `$FOCAL_MODELS`, `./models` and the install prefix.
    public var modelsPath: String?
    /// Byte and pixel limits on inputs; default `ImageLimits.default`.
    public var limits: ImageLimits
    /// Minimum face score 0...1; default 0.75.
    public var faceThreshold: Double

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(modelsPath: String? = nil, limits: ImageLimits = .default, faceThreshold: Double = 0.75) {
        self.modelsPath = modelsPath
        self.limits = limits
        self.faceThreshold = faceThreshold
    }
}
