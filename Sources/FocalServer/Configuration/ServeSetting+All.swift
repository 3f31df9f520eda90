import Focal
import Foundation
import Logging

// Every setting of `focal serve`. Adding one: a `ServeSetting` below, its place in `all`, its
// `@Option(.name)` or `@Flag(.name)` in ServeCommand, and the code that uses what it sets.
extension ServeSetting {
    /// Every setting, in the order they are read and logged: a later one may refine an earlier
    /// (`max-jobs` after `workers`, `cache-size` after `cache-dir`).
    public static let all: [ServeSetting] = [
        host, port, root, key, allowUnsafe, preset, presetsOnly, presetFilter, token, publicPhotos, data, database, cacheDir, cacheSize, memoryCache, maxAge, timingAllowOrigin, autoWebp, autoFormat,
        requestTimeout, workers, maxJobs, memoryBudget, maxConnections, headerTimeout, bodyTimeout, bodyMemory, answerMemory, maxJSONBytes, maxSignPaths,
        maxFrames, animationFrames, overlongAnimations, metricsAllow, trustedProxy, noMetrics, allowSource, allowNetwork, s3Endpoint, s3Region, s3AccessKeyID, s3SecretAccessKey, s3SessionToken,
        s3Addressing, s3Bucket, redact, models, modelCache, precision, logLevel,
    ]

    /// The setting named `name` (`max-frames`), if there is one.
    public static func named(_ name: String) -> ServeSetting? { all.first { $0.name == name } }

    /// `--host`: `ServerConfiguration.host`.
    public static let host = ServeSetting(
        "host", valueName: "address", defaultValue: "127.0.0.1", sample: "0.0.0.0", "Address to listen on",
        apply: { $0.host = $1 }, show: { $0.host })

    /// `--port`: `ServerConfiguration.port`.
    public static let port = ServeSetting(
        "port", valueName: "n", defaultValue: "8080", sample: "9000", "Port to listen on; 0 lets the system choose",
        apply: { $0.port = try number($1, in: 0...65535) }, show: { "\($0.port)" })

    /// `--root`: `ServerConfiguration.root`.
    public static let root = ServeSetting(
        "root", valueName: "dir", sample: ".", "Folder, or bucket as s3://BUCKET[/PREFIX], of images that URLs may name by relative path",
        apply: { configuration, path in
            if ObjectAddress.looksLikeOne(path) {
                guard BucketRoot(path) != nil else {
                    throw SettingError(reason: "not s3://BUCKET or s3://BUCKET/PREFIX with a bucket name of 3-63 characters (a-z, 0-9, dots, hyphens)")
                }
                configuration.root = path
                if configuration.pipeline.storage == nil { configuration.pipeline.storage = ObjectStorageSettings() }
                return
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else { throw SettingError(reason: "not a folder") }
            configuration.root = path
        }, show: { $0.root ?? "(none)" })

    /// `--key`, repeatable, and `FOCAL_KEYS`: `ServerConfiguration.keys`.
    public static let key = ServeSetting(
        list: "key", variable: "FOCAL_KEYS", valueName: "key", sample: "sample-key-1,sample-key-2", secret: true,
        "A key that verifies signed URLs; repeat it to rotate keys, the first signs",
        apply: { configuration, keys in
            guard keys.allSatisfy({ !$0.isEmpty }) else { throw SettingError(reason: "a key may not be empty") }
            configuration.keys = keys
        }, show: { $0.keys.isEmpty ? "(none)" : "\($0.keys.count) (hidden)" })

    /// `--allow-unsafe`: `ServerConfiguration.allowUnsafe`.
    public static let allowUnsafe = ServeSetting(
        flag: "allow-unsafe", "Serve /unsafe/... URLs, for local use: never on a public address",
        apply: { $0.allowUnsafe = $1 }, show: { "\($0.allowUnsafe)" })

    /// `--preset NAME=OPTIONS`, repeatable, and `FOCAL_PRESETS`: `ServerConfiguration.presets`. In the
    /// variable a comma that does not start `NAME=` belongs to the preset before it.
    public static let preset = ServeSetting(
        list: "preset", variable: "FOCAL_PRESETS", valueName: "name=options", defaultNote: "none",
        sample: "thumb=400x400/smart/filters:kinds(face):format(auto)",
        "A preset URLs use as filters:preset(NAME): NAME=a thumbor path fragment (400x400/smart/filters:kinds(face))",
        apply: { configuration, items in
            var texts: [String] = []
            for item in items {
                if let last = texts.last, let equals = item.firstIndex(of: "="), !Preset.isName(String(item[..<equals])) {
                    texts[texts.count - 1] = last + "," + item
                } else if let last = texts.last, !item.contains("=") {
                    texts[texts.count - 1] = last + "," + item
                } else {
                    texts.append(item)
                }
            }
            guard texts.count <= Preset.maxCount else { throw SettingError(reason: "at most \(Preset.maxCount) presets") }
            var presets: [String: Preset] = [:]
            for text in texts {
                let preset: Preset
                do throws(ServerError) { preset = try Preset(text: text) } catch { throw SettingError(reason: error.publicMessage) }
                guard presets[preset.name] == nil else { throw SettingError(reason: "the preset \(preset.name) is given twice") }
                presets[preset.name] = preset
            }
            configuration.presets = presets
        },
        show: { $0.presets.isEmpty ? "(none)" : $0.presets.keys.sorted().joined(separator: ",") })

    /// `--presets-only`: `ServerConfiguration.presetsOnly`.
    public static let presetsOnly = ServeSetting(
        flag: "presets-only", "Serve only image URLs that use a preset (403 for any other), so that unsigned URLs are safe to publish",
        apply: { $0.presetsOnly = $1 }, show: { "\($0.presetsOnly)" })

    /// `--preset-filter`, repeatable, and `FOCAL_PRESET_FILTERS`: `ServerConfiguration.presetFilters`.
    public static let presetFilter = ServeSetting(
        list: "preset-filter", variable: "FOCAL_PRESET_FILTERS", valueName: "filter", defaultNote: "expire", sample: "expire,attachment",
        "A filter a URL may give beside its preset under --presets-only",
        apply: { configuration, names in
            guard names.allSatisfy({ !$0.isEmpty && $0.count <= 40 && $0.allSatisfy { $0.isLetter || $0 == "_" } }) else {
                throw SettingError(reason: "a filter's name is letters and _ (expire)")
            }
            configuration.presetFilters = Set(names)
        },
        show: { $0.presetFilters.sorted().joined(separator: ",") })

    /// `--token`: `ServerConfiguration.token`.
    public static let token = ServeSetting(
        "token", valueName: "token", sample: "sample-token", secret: true,
        "Bearer token that writes (uploads, overrides) need; without one, writes are refused",
        apply: { $0.token = $1 }, show: { $0.token == nil ? "(none: writes refused)" : "(set, hidden)" })

    /// `--public-photos`: `ServerConfiguration.publicPhotos`.
    public static let publicPhotos = ServeSetting(
        flag: "public-photos", "With --key and without --allow-unsafe, let anyone list /v1/photos and read originals, not only a signature or the token",
        apply: { $0.publicPhotos = $1 }, show: { "\($0.publicPhotos)" })

    /// `--data`: `ServerConfiguration.dataDirectory`.
    public static let data = ServeSetting(
        "data", valueName: "dir", defaultNote: "a temporary folder", sample: "/var/lib/focal", "Folder for uploads and saved crops",
        apply: { $0.dataDirectory = $1 }, show: { $0.dataDirectory ?? "(temporary)" })

    /// `--database`: `ServerConfiguration.database`; its password never shows.
    public static let database = ServeSetting(
        "database", valueName: "url", defaultNote: "SQLite in the data folder", sample: "postgres://focal:sample-password@db.example:5432/focal",
        secret: true, "PostgreSQL URL, postgres://user:password@host:port/db, for saved crops and uploads shared by replicas",
        apply: { $0.database = try databaseURL($1) }, show: { $0.database.map { masked(databaseURL: $0) } ?? "(SQLite in the data folder)" })

    /// `--cache-dir`: `FocalConfiguration.diskCache`'s folder.
    public static let cacheDir = ServeSetting(
        "cache-dir", valueName: "dir", sample: "/var/cache/focal", "Keep finished crops in this folder across restarts",
        apply: { $0.pipeline.diskCache = DiskCacheSettings(folder: $1) }, show: { $0.pipeline.diskCache?.folder ?? "(none)" })

    /// `--cache-size`: `FocalConfiguration.diskCache`'s bound, with `--cache-dir`.
    public static let cacheSize = ServeSetting(
        "cache-size", valueName: "MiB", defaultValue: "1024", sample: "2048", "The most --cache-dir may hold",
        apply: { $0.pipeline.diskCache?.maxBytes = try number($1, in: 1...1 << 20) << 20 },
        show: { $0.pipeline.diskCache.map { "\($0.maxBytes >> 20) MiB" } ?? "(no cache-dir)" })

    /// `--memory-cache`: `FocalConfiguration.memoryCacheBytes`.
    public static let memoryCache = ServeSetting(
        "memory-cache", valueName: "MiB", defaultValue: "64", sample: "128", "Finished crops kept in memory; 0 turns it off",
        apply: { $0.pipeline.memoryCacheBytes = try number($1, in: 0...1 << 20) << 20 }, show: { "\($0.pipeline.memoryCacheBytes >> 20) MiB" })

    /// `--max-age`: `ServerConfiguration.maxAge`.
    public static let maxAge = ServeSetting(
        "max-age", valueName: "seconds", defaultValue: "86400", sample: "3600", "Cache-Control max-age of images",
        apply: { $0.maxAge = try number($1, in: 0...315_360_000) }, show: { "\($0.maxAge) s" })

    /// `--timing-allow-origin`: `ServerConfiguration.timingAllowOrigin`.
    public static let timingAllowOrigin = ServeSetting(
        "timing-allow-origin", valueName: "origins", defaultValue: "*", sample: "https://www.example.com",
        "Timing-Allow-Origin of every answer (* for any site, origins separated by commas, or none): lets pages measure images' timing and size",
        apply: { $0.timingAllowOrigin = try timingOrigins($1) }, show: { $0.timingAllowOrigin ?? "none" })

    /// `--auto-webp`: `ServerConfiguration.autoWebP`.
    public static let autoWebp = ServeSetting(
        flag: "auto-webp", "Send WebP to clients that accept it when the URL names no format, with Vary: Accept",
        apply: { $0.autoWebP = $1 }, show: { "\($0.autoWebP)" })

    /// `--auto-format`: `ServerConfiguration.autoFormat`.
    public static let autoFormat = ServeSetting(
        flag: "auto-format",
        "Send the best format the client accepts (AVIF, WebP, else JPEG) when the URL names no format, with Vary: Accept",
        apply: { $0.autoFormat = $1 }, show: { "\($0.autoFormat)" })

    /// `--request-timeout`: `ServerConfiguration.requestTimeout`.
    public static let requestTimeout = ServeSetting(
        "request-timeout", valueName: "seconds", defaultValue: "30", sample: "60", "Seconds any request may take before it is answered 503",
        apply: { $0.requestTimeout = try seconds($1) }, show: { "\($0.requestTimeout)" })

    /// `--workers`: `FocalConfiguration.workers`, and `maxJobs` 16 per worker.
    public static let workers = ServeSetting(
        "workers", valueName: "n", defaultNote: "one per core", sample: "3", "Native jobs at once; --max-jobs follows at 16 per worker",
        apply: { configuration, text in
            let workers = try number(text, in: 1...256)
            configuration.pipeline.workers = workers
            configuration.pipeline.maxJobs = 16 * workers
        }, show: { "\($0.pipeline.workers)" })

    /// `--max-jobs`: `FocalConfiguration.maxJobs`.
    public static let maxJobs = ServeSetting(
        "max-jobs", valueName: "n", defaultNote: "16 per worker", sample: "50",
        "Jobs (crops, plans, detections, uploads) in progress at once; more are answered 429 at once",
        apply: { $0.pipeline.maxJobs = try number($1, in: 1...100_000) }, show: { "\($0.pipeline.maxJobs)" })

    /// `--memory-budget`: `FocalConfiguration.memoryBudget`.
    public static let memoryBudget = ServeSetting(
        "memory-budget", valueName: "MiB", defaultValue: "256", sample: "512",
        "What the jobs in progress may hold together (inputs, downloads, decodes); past it, 429 at once",
        apply: { $0.pipeline.memoryBudget = try number($1, in: 16...1 << 20) << 20 }, show: { "\($0.pipeline.memoryBudget >> 20) MiB" })

    /// `--max-connections`: `RequestLimits.maxConnections`.
    public static let maxConnections = ServeSetting(
        "max-connections", valueName: "n", defaultNote: "from the file-descriptor limit, at most 16384", sample: "1000",
        "Open connections at once; more wait in the backlog",
        apply: { $0.requests.maxConnections = try number($1, in: 1...1_000_000) },
        show: { $0.requests.maxConnections.map(String.init) ?? "(from the file-descriptor limit)" })

    /// `--header-timeout`: `RequestLimits.headerTimeout`.
    public static let headerTimeout = ServeSetting(
        "header-timeout", valueName: "seconds", defaultValue: "10", sample: "5", "Seconds to send a whole request head; past it, 408",
        apply: { $0.requests.headerTimeout = try seconds($1) }, show: { "\($0.requests.headerTimeout)" })

    /// `--body-timeout`: `RequestLimits.bodyTimeout`.
    public static let bodyTimeout = ServeSetting(
        "body-timeout", valueName: "seconds", defaultValue: "30", sample: "20",
        "Seconds to send a whole request body; slower than 16 KiB/s after 5 s is closed too",
        apply: { $0.requests.bodyTimeout = try seconds($1) },
        show: { "\($0.requests.bodyTimeout), at least \($0.requests.bodyMinRate) bytes/s after \($0.requests.bodyGrace)" })

    /// `--body-memory`: `RequestLimits.maxBodyMemory`.
    public static let bodyMemory = ServeSetting(
        "body-memory", valueName: "MiB", defaultValue: "128", sample: "64", "Request bodies held across all connections; past it, 429 at once",
        apply: { $0.requests.maxBodyMemory = try number($1, in: 1...1 << 20) << 20 }, show: { "\($0.requests.maxBodyMemory >> 20) MiB" })

    /// `--answer-memory`: `RequestLimits.maxAnswerMemory`.
    public static let answerMemory = ServeSetting(
        "answer-memory", valueName: "MiB", defaultValue: "256", sample: "512",
        "Image answers being sent across all connections (one copy each, however many clients); past it, 503 at once",
        apply: { $0.requests.maxAnswerMemory = try number($1, in: 1...1 << 20) << 20 },
        show: { "\($0.requests.maxAnswerMemory >> 20) MiB, readers slower than \($0.requests.answerMinRate) bytes/s after \($0.requests.answerGrace) closed" })

    /// `--max-json-bytes`: `RequestLimits.maxJSONBytes`.
    public static let maxJSONBytes = ServeSetting(
        "max-json-bytes", valueName: "bytes", defaultValue: "1048576", sample: "65536",
        "The largest JSON body (/v1/plan, /v1/detect, /v1/sign, saved crops), in bytes; larger is answered 413",
        apply: { $0.requests.maxJSONBytes = try number($1, in: 1024...64 << 20) }, show: { "\($0.requests.maxJSONBytes) bytes" })

    /// `--max-sign-paths`: `RequestLimits.maxSignPaths`.
    public static let maxSignPaths = ServeSetting(
        "max-sign-paths", valueName: "n", defaultValue: "256", sample: "16", "The most paths one /v1/sign request may sign; more are answered 400",
        apply: { $0.requests.maxSignPaths = try number($1, in: 1...100_000) }, show: { "\($0.requests.maxSignPaths)" })

    /// `--max-frames`: `RequestLimits.maxFrames`.
    public static let maxFrames = ServeSetting(
        "max-frames", valueName: "n", defaultValue: "32", sample: "8", "The most frames one /v1/plan request may ask for; more are answered 400",
        apply: { $0.requests.maxFrames = try number($1, in: 1...1024) }, show: { "\($0.requests.maxFrames)" })

    /// `--animation-frames`: `ImageLimits.maxFrames`.
    public static let animationFrames = ServeSetting(
        "animation-frames", valueName: "n", defaultValue: "400", sample: "100",
        "The most frames of a GIF or WebP an animated answer is made from; a longer one is refused 422 input.too_many_frames (see --overlong-animations)",
        apply: { $0.pipeline.limits.maxFrames = try number($1, in: 1...4096) }, show: { "\($0.pipeline.limits.maxFrames)" })

    /// `--overlong-animations`: `ImageLimits.overlongAnimations`.
    public static let overlongAnimations = ServeSetting(
        "overlong-animations", valueName: "refuse|first-frame", defaultValue: "refuse", sample: "first-frame",
        "What an animation over the frame limits gets: refused 422, or its first frame as a still image",
        apply: { configuration, text in
            guard let choice = ImageLimits.OverlongAnimations(rawValue: text.lowercased()) else {
                throw SettingError(reason: "not refuse or first-frame")
            }
            configuration.pipeline.limits.overlongAnimations = choice
        }, show: { $0.pipeline.limits.overlongAnimations.rawValue })

    /// `--metrics-allow`, repeatable: `ServerConfiguration.metricsNetworks`.
    public static let metricsAllow = ServeSetting(
        list: "metrics-allow", valueName: "network", defaultNote: "loopback", sample: "10.0.0.0/24,192.168.1.7", "A network allowed to read /metrics",
        apply: { configuration, networks in
            configuration.metricsNetworks = try networks.map { text throws(SettingError) in try IPNetwork(text) }
        }, show: { $0.metricsNetworks.map(\.description).joined(separator: ", ") })

    /// `--trusted-proxy`, repeatable: `ServerConfiguration.trustedProxies`.
    public static let trustedProxy = ServeSetting(
        list: "trusted-proxy", valueName: "network", defaultNote: "loopback", sample: "10.0.0.0/24",
        "A proxy whose X-Forwarded-For names the client (clients share the jobs and memory fairly)",
        apply: { configuration, networks in
            configuration.trustedProxies = try networks.map { text throws(SettingError) in try IPNetwork(text) }
        }, show: { $0.trustedProxies.map(\.description).joined(separator: ", ") })

    /// `--no-metrics`: `ServerConfiguration.metrics` off.
    public static let noMetrics = ServeSetting(
        flag: "no-metrics", "Do not serve /metrics", apply: { $0.metrics = !$1 }, show: { "\(!$0.metrics)" })

    /// `--allow-source`, repeatable, and `FOCAL_ALLOW_SOURCES`: `NetworkSettings.allowedSources`.
    public static let allowSource = ServeSetting(
        list: "allow-source", variable: "FOCAL_ALLOW_SOURCES", valueName: "pattern", defaultNote: "any host",
        sample: "*.example.com,https://cdn.example.org/photos/", "A host (*.example.com) or URL prefix URL sources must match",
        apply: { $0.pipeline.network.allowedSources = try SourceAllowList($1) },
        show: { $0.pipeline.network.allowedSources.isEmpty ? "(any host)" : $0.pipeline.network.allowedSources.description })

    /// `--allow-network`, repeatable, and `FOCAL_ALLOW_NETWORKS`: `NetworkSettings.addressPolicy`.
    public static let allowNetwork = ServeSetting(
        list: "allow-network", variable: "FOCAL_ALLOW_NETWORKS", valueName: "network", defaultNote: "public addresses only", sample: "10.0.0.0/8",
        "An address or network (10.0.0.0/8) URL sources may be on besides public ones",
        apply: { $0.pipeline.network.addressPolicy = try AddressPolicy(allowing: $1) },
        show: { ServerConfiguration.describe($0.pipeline.network.addressPolicy) })

    /// `--s3-endpoint` and `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL`): `ObjectStorageSettings.endpoint`.
    public static let s3Endpoint = ServeSetting(
        "s3-endpoint", variable: "AWS_ENDPOINT_URL_S3", valueName: "url", defaultNote: "AWS, https://s3.REGION.amazonaws.com",
        sample: "http://127.0.0.1:8333", "The S3-compatible store s3:// roots and sources are read from (AWS_ENDPOINT_URL too)",
        apply: { configuration, text in
            configuration.pipeline.storage = configuration.storageOrDefault
            do throws(StorageError) {
                configuration.pipeline.storage?.endpoint = try ObjectStorageSettings.endpoint(text)
            } catch { throw SettingError(reason: error.message) }
        }, show: { $0.pipeline.storage.map { $0.endpoint?.absoluteString ?? "(AWS)" } ?? "(none)" })

    /// `--s3-region` and `AWS_REGION`: `ObjectStorageSettings.region`.
    public static let s3Region = ServeSetting(
        "s3-region", variable: "AWS_REGION", valueName: "region", defaultNote: "us-east-1", sample: "eu-west-3",
        "The region requests to the store are signed for",
        apply: { configuration, region in
            guard ObjectStorageSettings.isRegion(region) else { throw SettingError(reason: "a region name such as us-east-1 (a-z, 0-9, hyphens)") }
            configuration.pipeline.storage = configuration.storageOrDefault
            configuration.pipeline.storage?.region = region
        }, show: { $0.pipeline.storage?.region ?? "(none)" })

    /// `--s3-access-key-id` and `AWS_ACCESS_KEY_ID`: the key id of `ObjectStorageSettings.credentials`.
    public static let s3AccessKeyID = ServeSetting(
        "s3-access-key-id", variable: "AWS_ACCESS_KEY_ID", valueName: "id", sample: "AKIAIOSFODNN7EXAMPLE",
        "The access key id requests to the store are signed with (with --s3-secret-access-key)",
        apply: { configuration, id in
            configuration.pipeline.storage = configuration.storageOrDefault
            configuration.pipeline.storage?.credentials = S3Credentials(accessKeyID: id, secretAccessKey: "")
        }, show: { $0.pipeline.storage?.credentials?.accessKeyID ?? "(none: unsigned requests)" })

    /// `--s3-secret-access-key` and `AWS_SECRET_ACCESS_KEY`: the secret of `ObjectStorageSettings.credentials`.
    public static let s3SecretAccessKey = ServeSetting(
        "s3-secret-access-key", variable: "AWS_SECRET_ACCESS_KEY", valueName: "secret", sample: "sample-secret", secret: true,
        "The secret of the access key",
        apply: { configuration, secret in
            guard let id = configuration.pipeline.storage?.credentials?.accessKeyID else {
                throw SettingError(reason: "a secret without an access key id: set --s3-access-key-id (AWS_ACCESS_KEY_ID) too")
            }
            configuration.pipeline.storage?.credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret)
        }, show: { $0.pipeline.storage?.credentials == nil ? "(none)" : "(set, hidden)" })

    /// `--s3-session-token` and `AWS_SESSION_TOKEN`: temporary credentials' token.
    public static let s3SessionToken = ServeSetting(
        "s3-session-token", variable: "AWS_SESSION_TOKEN", valueName: "token", sample: "sample-token", secret: true,
        "The session token of temporary credentials",
        apply: { configuration, token in
            guard let credentials = configuration.pipeline.storage?.credentials else {
                throw SettingError(reason: "a session token without an access key: set --s3-access-key-id and --s3-secret-access-key too")
            }
            configuration.pipeline.storage?.credentials = S3Credentials(
                accessKeyID: credentials.accessKeyID, secretAccessKey: credentials.secretAccessKey, sessionToken: token)
        }, show: { $0.pipeline.storage?.credentials?.sessionToken == nil ? "(none)" : "(set, hidden)" })

    /// `--s3-addressing`: `ObjectStorageSettings.pathStyle`.
    public static let s3Addressing = ServeSetting(
        "s3-addressing", valueName: "style", defaultValue: "auto", sample: "path",
        "path (ENDPOINT/BUCKET/KEY), virtual (BUCKET.ENDPOINT/KEY), or auto: path for a custom endpoint, virtual for AWS",
        apply: { configuration, style in
            let choice: Bool?
            switch style {
            case "auto": choice = nil
            case "path": choice = true
            case "virtual": choice = false
            default: throw SettingError(reason: "path, virtual or auto")
            }
            guard choice != nil || configuration.pipeline.storage != nil else { return }
            configuration.pipeline.storage = configuration.storageOrDefault
            configuration.pipeline.storage?.pathStyle = choice
        }, show: { $0.pipeline.storage?.pathStyle.map { $0 ? "path" : "virtual" } ?? "auto" })

    /// `--s3-bucket`, repeatable, and `FOCAL_S3_BUCKETS`: `ObjectStorageSettings.allowedBuckets`.
    public static let s3Bucket = ServeSetting(
        list: "s3-bucket", variable: "FOCAL_S3_BUCKETS", valueName: "bucket", defaultNote: "the root's bucket only", sample: "photos,archive",
        "A bucket that s3://BUCKET/KEY image URLs may name besides the root's",
        apply: { configuration, buckets in
            guard let bad = buckets.first(where: { !ObjectAddress.isBucketName($0) }) else {
                configuration.pipeline.storage = configuration.storageOrDefault
                configuration.pipeline.storage?.allowedBuckets = Set(buckets)
                return
            }
            throw SettingError(reason: "\(bad.oneLine) is not a bucket name (3-63 characters: a-z, 0-9, dots, hyphens)")
        }, show: { $0.pipeline.storage.map { $0.allowedBuckets.isEmpty ? "(the root's)" : $0.allowedBuckets.sorted().joined(separator: ",") } ?? "(none)" })

    /// `--redact`: `ServerConfiguration.redact`.
    public static let redact = ServeSetting(
        "redact", valueName: "redaction", defaultValue: "none", sample: "pixelate,face+person",
        "Hide faces (or the kinds named) in every image sent, as filters:redact(...) does: blur, pixelate or RRGGBB[,strength][,kinds][,oval]; none",
        apply: { configuration, text in
            guard text.lowercased() != "none" else {
                configuration.redact = nil
                return
            }
            do throws(PlanningError) { configuration.redact = try Redaction(text: text) } catch { throw SettingError(reason: error.publicMessage) }
        }, show: { $0.redact?.text ?? "none" })

    /// `--models`: `FocalConfiguration.modelsPath`.
    public static let models = ServeSetting(
        "models", valueName: "dir", defaultNote: "./models, then the install prefix", sample: "/opt/focal/models", "Folder holding the model files",
        apply: { $0.pipeline.modelsPath = $1 }, show: { $0.pipeline.modelsPath ?? "(searched)" })

    /// `--model-cache`: `FocalConfiguration.compiledModelCache` (its default is
    /// `InferenceSettings.cacheFolder(environment:)`'s, which reads `XDG_CACHE_HOME` too).
    public static let modelCache = ServeSetting(
        "model-cache", valueName: "dir", defaultNote: "$XDG_CACHE_HOME/focal/compiled-models or ~/.cache/focal/compiled-models",
        sample: "/var/cache/focal/compiled-models", "Folder of compiled models, reused across restarts; off for none",
        apply: { configuration, text in
            configuration.pipeline.compiledModelCache = text.isEmpty || text.lowercased() == "off" ? nil : text
        }, show: { $0.pipeline.compiledModelCache ?? "off" })

    /// `--precision`: `FocalConfiguration.precisions` (`InferencePrecision.allowed(bySetting:)`).
    public static let precision = ServeSetting(
        "precision", valueName: "auto|bf16|fp32", defaultValue: "auto", sample: "fp32",
        "Detector precision: auto (each model the fastest precision this CPU runs that measured lossless; see focal doctor), bf16 (bf16 too where the CPU has it) or fp32",
        apply: { configuration, text in
            guard let allowed = InferencePrecision.allowed(bySetting: text) else { throw SettingError(reason: "must be auto, bf16 or fp32") }
            configuration.pipeline.precisions = allowed
        }, show: { configuration in
            ["auto", "bf16", "fp32"].first { InferencePrecision.allowed(bySetting: $0) == configuration.pipeline.precisions } ?? "custom"
        })

    /// `--log-level`: `ServerConfiguration.logLevel`.
    public static let logLevel = ServeSetting(
        "log-level", valueName: "level", defaultValue: "info", sample: "debug", "Log level: trace, debug, info, notice, warning, error or critical",
        apply: { configuration, text in
            guard let level = Logger.Level(rawValue: text.lowercased()) else { throw SettingError(reason: "must be trace, debug, info, notice, warning, error or critical") }
            configuration.logLevel = level
        }, show: { $0.logLevel.rawValue })
}
