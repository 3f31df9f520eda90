import ArgumentParser
import Focal
import FocalServer
import Foundation
import Hummingbird
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve subject-aware crops over HTTP, in thumbor's URL grammar, with a JSON API.",
        discussion: """
            Every option can also come from an environment variable, named after it: FOCAL_HOST,
            FOCAL_PORT, FOCAL_ROOT, FOCAL_KEYS (comma-separated), FOCAL_ALLOW_UNSAFE=1, FOCAL_TOKEN,
            FOCAL_CACHE_DIR, FOCAL_CACHE_SIZE, FOCAL_MEMORY_CACHE, FOCAL_MAX_AGE, FOCAL_AUTO_WEBP=1,
            FOCAL_REQUEST_TIMEOUT, FOCAL_WORKERS, FOCAL_MAX_JOBS, FOCAL_DATA, FOCAL_DATABASE, FOCAL_MODELS,
            FOCAL_ALLOW_SOURCES, FOCAL_ALLOW_NETWORKS, FOCAL_LOG_LEVEL, FOCAL_MEMORY_BUDGET,
            FOCAL_MAX_CONNECTIONS, FOCAL_HEADER_TIMEOUT, FOCAL_BODY_TIMEOUT, FOCAL_BODY_MEMORY,
            FOCAL_METRICS_ALLOW (comma-separated), FOCAL_PUBLIC_PHOTOS=1. A flag wins over its variable.

            Examples:
              focal serve --root Fixtures --allow-unsafe
                curl -o a.jpg http://127.0.0.1:8080/unsafe/400x400/smart/astronaut.png
              FOCAL_KEYS=$(head -c 24 /dev/urandom | base64) focal serve --root photos --port 9000
            """)

    @Option(help: "Address to listen on (default 127.0.0.1).")
    var host: String?
    @Option(help: "Port to listen on (default 8080).")
    var port: Int?
    @Option(help: "Folder of images that URLs may name by relative path.")
    var root: String?
    @Option(name: .customLong("key"), help: "A key that verifies signed URLs; repeat it to rotate keys (the first signs).")
    var keys: [String] = []
    @Flag(help: "Serve /unsafe/... URLs (for local use; never on a public address).")
    var allowUnsafe = false
    @Option(help: "Bearer token that writes (uploads, overrides) need; without one, writes are refused.")
    var token: String?
    @Option(help: "Keep finished crops in this folder across restarts.")
    var cacheDir: String?
    @Option(help: "The most --cache-dir may hold, in MiB (default 1024).")
    var cacheSize: Int?
    @Option(help: "Finished crops kept in memory, in MiB (default 64; 0 turns it off).")
    var memoryCache: Int?
    @Option(help: "Cache-Control max-age of images, in seconds (default 86400).")
    var maxAge: Int?
    @Flag(help: "Send WebP to clients that accept it when the URL names no format (adds Vary: Accept).")
    var autoWebp = false
    @Option(help: "Seconds any request may take before it is answered 503 (default 30).")
    var requestTimeout: Double?
    @Option(help: "Native jobs at once (default: the cores).")
    var workers: Int?
    @Option(help: "Jobs (crops, plans, detections, uploads) in progress at once; more are answered 429 at once (default 16 per worker).")
    var maxJobs: Int?
    @Option(help: "MiB the jobs in progress may hold together (inputs, downloads, decodes); past it, 429 at once (default 256).")
    var memoryBudget: Int?
    @Option(help: "Open connections at once; more wait in the backlog (default: from the file-descriptor limit, at most 16384).")
    var maxConnections: Int?
    @Option(help: "Seconds to send a whole request head (default 10).")
    var headerTimeout: Double?
    @Option(help: "Seconds to send a whole request body; slower than 16 KiB/s after 5 s is closed too (default 30).")
    var bodyTimeout: Double?
    @Option(help: "MiB of request bodies held across all connections; past it, 503 at once (default 128).")
    var bodyMemory: Int?
    @Option(name: .customLong("metrics-allow"), help: "A network allowed to read /metrics (default loopback); repeatable.")
    var metricsAllow: [String] = []
    @Flag(help: "With --key and without --allow-unsafe, let anyone list /v1/photos and read originals (default: signature or token).")
    var publicPhotos = false
    @Option(help: "Folder for uploads and saved crops (default: a temporary folder).")
    var data: String?
    @Option(help: "Folder holding the model files.")
    var models: String?
    @Option(help: "PostgreSQL URL for saved crops and uploads shared by replicas (postgres://user:password@host:port/db).")
    var database: String?
    @Option(name: .customLong("allow-source"), help: "A host (*.example.com) or URL prefix URL sources must match; repeatable.")
    var allowSources: [String] = []
    @Option(name: .customLong("allow-network"), help: "An address or network (10.0.0.0/8) URL sources may be on besides public ones; repeatable.")
    var allowNetworks: [String] = []
    @Option(help: "Log level: debug, info, notice, warning, error (default info).")
    var logLevel: String?
    @Flag(help: "Do not serve /metrics.")
    var noMetrics = false

    /// The settings from flags, then environment variables, then defaults.
    func serverConfiguration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        func env(_ name: String) -> String? { environment["FOCAL_" + name].flatMap { $0.isEmpty ? nil : $0 } }
        func flag(_ name: String) -> Bool { ["1", "true", "yes", "on"].contains(env(name)?.lowercased() ?? "") }
        func number(_ value: Int?, _ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let value = try value ?? env(name).map({ text -> Int in
                guard let n = Int(text) else { throw ValidationError("FOCAL_\(name)=\(text) is not a whole number.") }
                return n
            }) else { return nil }
            guard range.contains(value) else {
                throw ValidationError("\(name.lowercased().replacingOccurrences(of: "_", with: "-")) \(value) must be between \(range.lowerBound) and \(range.upperBound).")
            }
            return value
        }
        var pipeline = FocalConfiguration(modelsPath: models ?? env("MODELS"))
        // Requests run side by side on every core: one thread per inference gives the most crops per second.
        pipeline.inferenceThreads = 1
        if let workers = try number(workers, "WORKERS", 1...256) { pipeline.workers = workers; pipeline.maxJobs = 16 * workers }
        if let maxJobs = try number(maxJobs, "MAX_JOBS", 1...100_000) { pipeline.maxJobs = maxJobs }
        if let memory = try number(memoryCache, "MEMORY_CACHE", 0...1 << 20) { pipeline.memoryCacheBytes = memory << 20 }
        if let folder = cacheDir ?? env("CACHE_DIR") {
            try CropCommand.checkWritable(folder)
            let size = try number(cacheSize, "CACHE_SIZE", 1...1 << 20) ?? 1024
            pipeline.diskCache = DiskCacheSettings(folder: folder, maxBytes: size << 20)
        }
        let sources = allowSources.isEmpty ? (env("ALLOW_SOURCES")?.split(separator: ",").map(String.init) ?? []) : allowSources
        let networks = allowNetworks.isEmpty ? (env("ALLOW_NETWORKS")?.split(separator: ",").map(String.init) ?? []) : allowNetworks
        do {
            pipeline.network.allowedSources = try SourceAllowList(sources.map { $0.trimmingCharacters(in: .whitespaces) })
            pipeline.network.addressPolicy = try AddressPolicy(allowing: networks.map { $0.trimmingCharacters(in: .whitespaces) })
        } catch {
            throw ValidationError(error.description)
        }
        func seconds(_ value: Double?, _ name: String, _ fallback: Double) throws -> Duration {
            let given = try value ?? env(name).map { text -> Double in
                guard let seconds = Double(text) else { throw ValidationError("FOCAL_\(name)=\(text) is not a number of seconds.") }
                return seconds
            } ?? fallback
            guard given > 0, given <= 3600 else {
                throw ValidationError("--\(name.lowercased().replacingOccurrences(of: "_", with: "-")) must be between 0 and 3600 seconds.")
            }
            return .milliseconds(Int(given * 1000))
        }
        let timeout = try seconds(requestTimeout, "REQUEST_TIMEOUT", 30)
        if let budget = try number(memoryBudget, "MEMORY_BUDGET", 16...1 << 20) { pipeline.memoryBudget = budget << 20 }
        var requests = RequestLimits()
        requests.headerTimeout = try seconds(headerTimeout, "HEADER_TIMEOUT", 10)
        requests.bodyTimeout = try seconds(bodyTimeout, "BODY_TIMEOUT", 30)
        if let memory = try number(bodyMemory, "BODY_MEMORY", 1...1 << 20) { requests.maxBodyMemory = memory << 20 }
        requests.maxConnections = try number(maxConnections, "MAX_CONNECTIONS", 1...1_000_000)
        let metricsText = metricsAllow.isEmpty ? (env("METRICS_ALLOW")?.split(separator: ",").map(String.init) ?? []) : metricsAllow
        var metricsNetworks = ServerConfiguration.loopback
        if !metricsText.isEmpty {
            do {
                metricsNetworks = try metricsText.map { text throws(NetworkSettingError) in try IPNetwork(text.trimmingCharacters(in: .whitespaces)) }
            } catch {
                throw ValidationError(error.description)
            }
        }
        let keyList = keys.isEmpty ? (env("KEYS")?.split(separator: ",").map(String.init) ?? []) : keys
        guard keyList.allSatisfy({ !$0.isEmpty }) else { throw ValidationError("--key may not be empty.") }
        return ServerConfiguration(
            host: host ?? env("HOST") ?? "127.0.0.1", port: try number(port, "PORT", 0...65535) ?? 8080,
            root: root ?? env("ROOT"), keys: keyList, allowUnsafe: allowUnsafe || flag("ALLOW_UNSAFE"),
            token: token ?? env("TOKEN"), maxAge: try number(maxAge, "MAX_AGE", 0...315_360_000) ?? 86_400,
            autoWebP: autoWebp || flag("AUTO_WEBP"), requestTimeout: timeout,
            dataDirectory: data ?? env("DATA"), metrics: !noMetrics, metricsNetworks: metricsNetworks,
            publicPhotos: publicPhotos || flag("PUBLIC_PHOTOS"), requests: requests, database: database ?? env("DATABASE"),
            pipeline: pipeline)
    }

    func validate() throws {
        try Usage.check(json: false) {
            let configuration = try serverConfiguration()
            if let root = configuration.root {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root, isDirectory: &isFolder), isFolder.boolValue else {
                    throw ValidationError("--root \(root) is not a folder.")
                }
            }
            if let level = logLevel ?? ProcessInfo.processInfo.environment["FOCAL_LOG_LEVEL"], Logger.Level(rawValue: level) == nil {
                throw ValidationError("--log-level must be trace, debug, info, notice, warning, error or critical.")
            }
        }
    }

    func run() async throws {
        let configuration = try serverConfiguration()
        Self.limitMallocArenas(to: configuration.pipeline.workers)
        let level = Logger.Level(rawValue: logLevel ?? ProcessInfo.processInfo.environment["FOCAL_LOG_LEVEL"] ?? "info") ?? .info
        LoggingSystem.bootstrap { label in JSONLogHandler(label: label, level: level) }
        let logger = Logger(label: "focal.serve")
        var settings: Logger.Metadata = [:]
        for (name, value) in configuration.summary { settings[name] = .string(value) }
        logger.info("starting", metadata: settings)
        if configuration.allowUnsafe && !["127.0.0.1", "::1", "localhost"].contains(configuration.host) {
            logger.warning("unsafe URLs are served on a non-loopback address: anyone who reaches it can ask for any crop")
        }
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
