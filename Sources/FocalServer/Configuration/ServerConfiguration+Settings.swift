public import Focal

extension ServerConfiguration {
    /// The configuration `focal serve` runs with: each setting of `ServeSetting.all` from its flag,
    /// else its `FOCAL_*` environment variable, else its default. Detector inference runs on one
    /// thread per request (`inferenceThreads` 1): requests run side by side on every core, which
    /// gives the most crops per second. Compiled models are kept where `--model-cache` or
    /// `FOCAL_MODEL_CACHE` says, else where `InferenceSettings.cacheFolder(environment:)` puts them.
    /// - Parameters:
    ///   - flags: The flags given, by setting name (`max-frames`): a value as one text, a repeated
    ///     flag's values in order, a flag given alone as `["true"]`; default none.
    ///   - environment: The environment variables (`ProcessInfo.processInfo.environment`).
    /// - Throws: `SettingError` for the first setting whose flag, variable or default cannot be taken.
    public init(flags: [String: [String]] = [:], environment: [String: String]) throws(SettingError) {
        assert(flags.keys.allSatisfy { ServeSetting.named($0) != nil }, "flags that are no setting: \(flags.keys.sorted())")
        self.init()
        pipeline.inferenceThreads = 1
        pipeline.compiledModelCache = InferenceSettings.cacheFolder(environment: environment)
        // AWS's convention: AWS_ENDPOINT_URL serves every service when AWS_ENDPOINT_URL_S3 is not set.
        var environment = environment
        if environment["AWS_ENDPOINT_URL_S3", default: ""].isEmpty, let general = environment["AWS_ENDPOINT_URL"], !general.isEmpty {
            environment["AWS_ENDPOINT_URL_S3"] = general
        }
        // The same for the region, as the command line reads it.
        if environment["AWS_REGION", default: ""].isEmpty, let region = environment["AWS_DEFAULT_REGION"], !region.isEmpty {
            environment["AWS_REGION"] = region
        }
        for setting in ServeSetting.all {
            try setting.resolve(into: &self, flag: flags[setting.name], variable: environment[setting.variable])
        }
        if pipeline.storage?.credentials?.secretAccessKey.isEmpty == true {
            throw SettingError(reason: "an access key id without its secret: set --s3-secret-access-key (AWS_SECRET_ACCESS_KEY) too")
        }
    }

    /// The object storage settings in force, or the defaults (AWS, unsigned) when none are yet.
    var storageOrDefault: ObjectStorageSettings { pipeline.storage ?? ObjectStorageSettings() }
}
