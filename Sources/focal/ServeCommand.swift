import ArgumentParser
import Focal
import FocalServer
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve subject-aware crops over HTTP, in thumbor's URL grammar, with a JSON API.",
        discussion: """
            Every option can also come from the environment variable its help names; a flag wins over \
            its variable, and a variable set to nothing counts as unset. A repeatable option's variable \
            is comma-separated; a flag's takes 1, true, yes or on (0, false, no or off leave it off). \
            The start-up log line shows every setting in force; secrets never, not even in part.

            Examples:
              focal serve --root Fixtures --allow-unsafe
                curl -o a.jpg http://127.0.0.1:8080/unsafe/400x400/smart/astronaut.png
              FOCAL_KEYS=$(head -c 24 /dev/urandom | base64) focal serve --root photos --port 9000
            """)

    // One property per setting of `ServeSetting.all`, named after it (`maxFrames` for `--max-frames`),
    // in the same order; everything else about it is declared there.
    @Option(.host) var host: String?
    @Option(.port) var port: String?
    @Option(.root) var root: String?
    @Option(.key) var key: [String] = []
    @Flag(.allowUnsafe) var allowUnsafe = false
    @Option(.preset) var preset: [String] = []
    @Flag(.presetsOnly) var presetsOnly = false
    @Option(.presetFilter) var presetFilter: [String] = []
    @Option(.token) var token: String?
    @Flag(.publicPhotos) var publicPhotos = false
    @Option(.data) var data: String?
    @Option(.database) var database: String?
    @Option(.cacheDir) var cacheDir: String?
    @Option(.cacheSize) var cacheSize: String?
    @Option(.memoryCache) var memoryCache: String?
    @Option(.maxAge) var maxAge: String?
    @Option(.timingAllowOrigin) var timingAllowOrigin: String?
    @Flag(.autoWebp) var autoWebp = false
    @Flag(.autoFormat) var autoFormat = false
    @Option(.requestTimeout) var requestTimeout: String?
    @Option(.workers) var workers: String?
    @Option(.maxJobs) var maxJobs: String?
    @Option(.memoryBudget) var memoryBudget: String?
    @Option(.maxConnections) var maxConnections: String?
    @Option(.headerTimeout) var headerTimeout: String?
    @Option(.bodyTimeout) var bodyTimeout: String?
    @Option(.bodyMemory) var bodyMemory: String?
    @Option(.answerMemory) var answerMemory: String?
    @Option(.maxJSONBytes) var maxJSONBytes: String?
    @Option(.maxSignPaths) var maxSignPaths: String?
    @Option(.maxFrames) var maxFrames: String?
    @Option(.animationFrames) var animationFrames: String?
    @Option(.overlongAnimations) var overlongAnimations: String?
    @Option(.metricsAllow) var metricsAllow: [String] = []
    @Option(.trustedProxy) var trustedProxy: [String] = []
    @Flag(.noMetrics) var noMetrics = false
    @Option(.allowSource) var allowSource: [String] = []
    @Option(.allowNetwork) var allowNetwork: [String] = []
    @Option(.s3Endpoint) var s3Endpoint: String?
    @Option(.s3Region) var s3Region: String?
    @Option(.s3AccessKeyID) var s3AccessKeyID: String?
    @Option(.s3SecretAccessKey) var s3SecretAccessKey: String?
    @Option(.s3SessionToken) var s3SessionToken: String?
    @Option(.s3Addressing) var s3Addressing: String?
    @Option(.s3Bucket) var s3Bucket: [String] = []
    @Option(.redact) var redact: String?
    @Option(.models) var models: String?
    @Option(.modelCache) var modelCache: String?
    @Option(.precision) var precision: String?
    @Option(.logLevel) var logLevel: String?

    /// The flags given, by setting name, as `ServerConfiguration(flags:environment:)` takes them: the
    /// value of every `@Option` and `@Flag` above that was given, found by reflection under the name
    /// of the setting it stands for.
    var givenFlags: [String: [String]] {
        var given: [String: [String]] = [:]
        for case let (label?, value) in Mirror(reflecting: self).children {
            let texts: [String]
            switch value {
            case let option as Option<String?>: texts = option.wrappedValue.map { [$0] } ?? []
            case let option as Option<[String]>: texts = option.wrappedValue
            case let flag as Flag<Bool>: texts = flag.wrappedValue ? ["true"] : []
            default: continue
            }
            guard let setting = Self.setting(forProperty: label) else {
                assertionFailure("\(label) stands for no setting in ServeSetting.all")
                continue
            }
            if !texts.isEmpty { given[setting.name] = texts }
        }
        return given
    }

    /// The setting a property stands for: the one whose name is the property's (`_maxJSONBytes`)
    /// without underscores and dashes, in any case (`max-json-bytes`).
    static func setting(forProperty label: String) -> ServeSetting? {
        let key = label.filter { $0 != "_" }.lowercased()
        return ServeSetting.all.first { $0.name.filter { $0 != "-" } == key }
    }

    /// The configuration from the flags, then the environment variables, then the defaults; the
    /// cache folder created and checked for writing.
    /// - Parameter environment: The environment variables; default the process's.
    /// - Throws: `SettingError` naming the flag or variable at fault, or `ValidationError` for a cache folder that cannot be written.
    func serverConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        let configuration = try ServerConfiguration(flags: givenFlags, environment: environment)
        if let cache = configuration.pipeline.diskCache { try CropCommand.checkWritable(cache.folder) }
        return configuration
    }

    func validate() throws {
        try Usage.check(json: false) { _ = try serverConfiguration() }
    }

    func run() async throws {
        let configuration = try serverConfiguration()
        Self.limitMallocArenas(to: configuration.pipeline.workers)
        // A log reader that went away (standard error a closed pipe) must not end the server:
        // the write fails with EPIPE and the line is dropped, as nginx and Varnish do.
        signal(SIGPIPE, SIG_IGN)
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        let logger = Logger(label: "focal.serve")
        var settings: Logger.Metadata = [:]
        for (name, value) in configuration.summary { settings[name] = .string(value) }
        logger.info("starting", metadata: settings)
        for warning in configuration.startWarnings { logger.warning("\(warning)") }
        try await runServer(configuration: configuration, logger: logger)
        logger.info("stopped")
    }

    /// glibc gives every thread that allocates its own arena (up to 8 per core), so decoding and
    /// detection on many threads kept about 100 MiB more resident than they used
    /// (`make bench-serve`: 458 against 350 MiB peak with one arena per worker, the same
    /// requests per second). `MALLOC_ARENA_MAX` in the environment still wins. Buffers of 4 MiB
    /// and more (downloads, decodes, encoded outputs) are mapped apart and given back the moment
    /// they are freed (glibc would otherwise raise that threshold up to 32 MiB as it sees them
    /// freed, and keep them in its arenas after a burst); `MALLOC_MMAP_THRESHOLD_` still wins.
    static func limitMallocArenas(to workers: Int) {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "mallopt") else { return }  // <malloc.h> is not in Swift's Glibc module
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_ARENA_MAX"] == nil {
            let mArenaMax: Int32 = -8  // M_ARENA_MAX
            _ = mallopt(mArenaMax, Int32(clamping: max(2, workers)))
        }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil {
            let mMmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD
            _ = mallopt(mMmapThreshold, 4 << 20)
        }
        #endif
    }
}
