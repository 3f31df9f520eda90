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

    /// The limits for a person's own files on the command line: the library's input limits, and
    /// outputs as large as an input may be (the library's server-minded default is 8192 px).
    var limits: ImageLimits {
        var limits = ImageLimits.default
        limits.maxOutputSide = limits.maxSide
        limits.maxOutputPixels = limits.maxPixels
        limits.timeout = .seconds(60)
        return limits
    }

    /// Checks the subjects file reads; call from a command's `validate()` inside `Usage.check`.
    func check() throws {
        if let subjects { _ = try SubjectFile(path: subjects, maxSubjects: limits.maxSubjects) }
    }

    /// A pipeline on these options.
    /// - Parameter configure: Changes to the configuration the command needs (a disk cache).
    func pipeline(_ configure: (inout FocalConfiguration) -> Void = { _ in }) throws -> FocalPipeline {
        let extra: [any SubjectDetecting] = try subjects.map { [try SubjectFile(path: $0, maxSubjects: limits.maxSubjects)] } ?? []
        var configuration = FocalConfiguration(modelsPath: models, limits: limits)
        configure(&configuration)
        return FocalPipeline(configuration: configuration, detectors: extra)
    }
}
