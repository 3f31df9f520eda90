import ArgumentParser
import Focal

/// The options every command that detects shares.
struct DetectionOptions: ParsableArguments {
    @Option(help: "Detection setting: fast or accurate (finds smaller faces, slower).")
    var accuracy: Accuracy = .fast

    @Option(help: "Folder holding the model files (default: $FOCAL_MODELS, ./models, the install prefix).")
    var models: String?

    @Option(help: "A JSON file of subjects you already know, used beside the detectors (see README).")
    var subjects: String?

    /// A pipeline on these options.
    /// - Parameter configure: Changes to the configuration the command needs (a disk cache).
    func pipeline(_ configure: (inout FocalConfiguration) -> Void = { _ in }) throws -> FocalPipeline {
        let extra: [any SubjectDetecting] = try subjects.map { [try SubjectFile(path: $0)] } ?? []
        var configuration = FocalConfiguration(modelsPath: models)
        configure(&configuration)
        return FocalPipeline(configuration: configuration, detectors: extra)
    }
}
