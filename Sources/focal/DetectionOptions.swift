import ArgumentParser
import Focal
import Foundation

/// The options every command that reads and detects shares: detection, models, known subjects,
/// and which URLs may be fetched.
struct DetectionOptions: ParsableArguments {
    @Option(help: "Detection setting: fast or accurate (finds smaller faces, slower).")
    var accuracy: Accuracy = .fast

    @Option(help: "Folder holding the model files (default: $FOCAL_MODELS, ./models, the install prefix).")
    var models: String?

    @Option(
        help: """
            Detector precision: auto (each model the fastest precision this CPU runs that measured lossless: int8 or fp32; \
            see focal doctor), bf16 (bf16 too, where the CPU has it) or fp32.
            """)
    var precision: PrecisionSetting = .auto

    @Option(help: "A JSON file of subjects you already know, used beside the detectors (see docs/cli.md).")
    var subjects: String?

    @Flag(help: "Fetch URLs only from public addresses: refuse loopback, private, link-local and other special addresses, also after redirects (by default any address is fetched).")
    var publicOnly = false

    @Option(
        name: .customLong("allow-source"),
        help: "Fetch URLs only from this host (example.com), the subdomains of a domain (*.example.com) or under a URL prefix (https://cdn.example.com/img/); repeat for more.")
    var allowedSources: [String] = []

    /// The network settings for a person's own URLs: any address unless `--public-only`, any
    /// source unless `--allow-source`.
    func network() throws -> NetworkSettings {
        var network = NetworkSettings()
        network.addressPolicy = publicOnly ? .publicOnly : .allowAll
        do {
            network.allowedSources = try SourceAllowList(allowedSources)
        } catch {
            throw ValidationError("--allow-source \(error)")
        }
        return network
    }

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
        _ = try network()
    }

    /// A pipeline on these options. Unlike the library's default, it fetches URLs from any
    /// address (a person fetching their own URLs) unless `--public-only` is given.
    /// - Parameters:
    ///   - inputs: How many inputs it will run: with more than one, they run side by side and
    ///     each inference keeps to one thread; one input's inferences use every core.
    ///   - configure: Changes to the configuration the command needs (a disk cache).
    func pipeline(inputs: Int, _ configure: (inout FocalConfiguration) -> Void = { _ in }) throws -> FocalPipeline {
        let extra: [any SubjectDetecting] = try subjects.map { [try SubjectFile(path: $0, maxSubjects: limits.maxSubjects)] } ?? []
        let environment = ProcessInfo.processInfo.environment
        let modelsPath = models ?? environment["FOCAL_MODELS"].flatMap { $0.isEmpty ? nil : $0 }
        var configuration = FocalConfiguration(modelsPath: modelsPath, limits: limits, network: try network())
        // `s3://BUCKET/KEY` inputs: the store and keys from AWS's variables.
        configuration.storage = try ObjectStorageSettings(environment: environment)
        configuration.compiledModelCache = InferenceSettings.cacheFolder(environment: environment)
        configuration.inferenceThreads = inputs > 1 ? 1 : configuration.workers
        configuration.precisions = InferencePrecision.allowed(bySetting: precision.rawValue) ?? [.fp32]
        configure(&configuration)
        return FocalPipeline(configuration: configuration, detectors: extra)
    }
}

/// `--precision`: which precisions the detectors may use (`InferencePrecision.allowed(bySetting:)`).
enum PrecisionSetting: String, CaseIterable, ExpressibleByArgument {
    case auto, bf16, fp32
}
