import ArgumentParser
import Focal
import Foundation

/// `focal doctor`: what this machine runs detection with: the CPU's features, what OpenVINO says
/// of them, the precision each detector chose, and the folders of models and compiled models.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Show how detection runs here: CPU features, OpenVINO, each detector's precision, the model folders.",
        discussion: """
            Examples:
              focal doctor
              focal doctor --precision fp32
              focal doctor --json
            """)

    @Option(help: "Models folder (default: $FOCAL_MODELS, ./models, the install prefix).")
    var models: String?

    @Option(help: "Detector precision: auto, bf16 or fp32, as for focal crop.")
    var precision: PrecisionSetting = .auto

    @Flag(help: "Print one JSON object instead of lines.")
    var json = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = FocalConfiguration(modelsPath: models ?? environment["FOCAL_MODELS"].flatMap { $0.isEmpty ? nil : $0 })
        configuration.compiledModelCache = InferenceSettings.cacheFolder(environment: environment)
        configuration.precisions = InferencePrecision.allowed(bySetting: precision.rawValue) ?? [.fp32]
        let folder = try? ModelDirectory.locate(explicit: configuration.modelsPath, containing: FaceDetector.modelFile)
        let openVINO: String
        do {
            openVINO = try InferencePrecision.openVINOCapabilities().joined(separator: " ")
        } catch {
            openVINO = "unavailable: \(error.detail)"
        }
        let precisions = configuration.detectorPrecisions
        if json {
            var object: [String: String] = [
                "version": FocalVersion.string, "cpu": CPUFeatures.current.description, "openvino_capabilities": openVINO,
                "models": folder?.path ?? "(not found)", "compiled_models": configuration.compiledModelCache ?? "off",
            ]
            for entry in precisions { object["precision_" + entry.stage] = entry.precision.rawValue }
            Terminal.out(DocumentEncoding.text(object))
            return
        }
        Terminal.out("focal \(FocalVersion.string)")
        Terminal.out("CPU features:           \(CPUFeatures.current)")
        Terminal.out("OpenVINO capabilities:  \(openVINO)")
        for entry in precisions {
            Terminal.out("\(entry.stage) precision:".padding(toLength: 24, withPad: " ", startingAt: 0) + entry.precision.rawValue)
        }
        Terminal.out("models:                 \(folder?.path ?? "(not found: run make models)")")
        Terminal.out("compiled models:        \(configuration.compiledModelCache ?? "off")")
    }
}
