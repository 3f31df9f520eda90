public import Focal
import Foundation

/// Everything `focal serve` is configured with. Every setting has a default that suits one
/// machine serving its own photos on loopback; flags (`focal serve --help`) and `FOCAL_*`
/// environment variables set them.
public struct ServerConfiguration: Sendable {
    /// The address to listen on; default `127.0.0.1`.
    public var host: String
    /// The port to listen on; default 8080 (0 lets the system choose).
    public var port: Int
    /// A folder of images that thumbor-style URLs may name by relative path; default none.
    public var root: String?
    /// Keys that verify signed URLs (thumbor's HMAC-SHA1); several for rotation, all accepted.
    /// Default none: only `unsafe/` URLs work, and only with `allowUnsafe`.
    public var keys: [String]
    /// Whether `/unsafe/...` URLs are served; default `false`.
    public var allowUnsafe: Bool
    /// The bearer token that writes (uploads, overrides) need; default none: writes are refused.
    public var token: String?
    /// `Cache-Control: public, max-age` of image responses, in seconds; default 86400 (a day).
    public var maxAge: Int
    /// Whether WebP is sent to clients that accept it when the URL names no format (then
    /// responses carry `Vary: Accept`); default `false`.
    public var autoWebP: Bool
    /// The longest any request may take before it is answered 503; default 30 s.
    public var requestTimeout: Duration
    /// The largest request body (uploads, JSON), checked while it streams; default the input
    /// byte limit (64 MiB).
    public var maxBodyBytes: Int
    /// A folder for uploads and saved overrides; default none (uploads kept in a temporary
    /// folder for the life of the process).
    public var dataDirectory: String?
    /// Whether `/metrics` is served; default `true`.
    public var metrics: Bool
    /// The networks `/metrics` answers; default loopback only (`127.0.0.0/8`, `::1`). Anyone else
    /// gets 404. A cache in front must not pass it (the VCL answers 404 itself).
    public var metricsNetworks: [IPNetwork]
    /// With keys and without `allowUnsafe` (signed-only), whether `/v1/photos` and the originals
    /// (`/v1/images/{id}`) may be read without a signature or the token; default `false`.
    public var publicPhotos: Bool
    /// Deadlines, sizes and counts of connections and request bodies.
    public var requests: RequestLimits
    /// A PostgreSQL database (`postgres://user:password@host:port/database`) for saved crops and
    /// uploads, shared by every replica; default none (SQLite and a folder under `dataDirectory`).
    public var database: String?
    /// The library's settings: models, limits, caches, workers, queue, network policy.
    public var pipeline: FocalConfiguration

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, root: String? = nil, keys: [String] = [], allowUnsafe: Bool = false,
        token: String? = nil, maxAge: Int = 86_400, autoWebP: Bool = false, requestTimeout: Duration = .seconds(30),
        maxBodyBytes: Int? = nil, dataDirectory: String? = nil, metrics: Bool = true,
        metricsNetworks: [IPNetwork] = ServerConfiguration.loopback, publicPhotos: Bool = false,
        requests: RequestLimits = RequestLimits(), database: String? = nil, pipeline: FocalConfiguration = FocalConfiguration()
    ) {
        self.host = host
        self.port = port
        self.root = root
        self.keys = keys
        self.allowUnsafe = allowUnsafe
        self.token = token
        self.maxAge = maxAge
        self.autoWebP = autoWebP
        self.requestTimeout = requestTimeout
        self.maxBodyBytes = maxBodyBytes ?? pipeline.limits.maxInputBytes
        self.dataDirectory = dataDirectory
        self.metrics = metrics
        self.metricsNetworks = metricsNetworks
        self.publicPhotos = publicPhotos
        self.requests = requests
        self.database = database
        self.pipeline = pipeline
    }

    /// Loopback: `127.0.0.0/8` and `::1`.
    public static var loopback: [IPNetwork] { ["127.0.0.0/8", "::1/128"].compactMap { try? IPNetwork($0) } }

    /// Whether the server is signed-only: keys, and no unsafe URLs. Then every read of the JSON
    /// API needs a signature or the token (see `Authorization`).
    public var signedOnly: Bool { !keys.isEmpty && !allowUnsafe }

    /// The settings as `name value` lines for the start-up log; secrets are never shown, not even
    /// in part.
    public var summary: [(String, String)] {
        let limits = pipeline.limits
        let requests = requests
        return [
            ("version", FocalVersion.string),
            ("listen", "\(host):\(port)"),
            ("root", root ?? "(none)"),
            ("keys", keys.isEmpty ? "(none)" : "\(keys.count) (hidden)"),
            ("allow-unsafe", "\(allowUnsafe)"),
            ("token", token == nil ? "(none: writes refused)" : "(set, hidden)"),
            ("public-photos", "\(publicPhotos)"),
            ("data", dataDirectory ?? "(temporary)"),
            ("database", database.map(Self.maskPassword) ?? "(SQLite in the data folder)"),
            ("cache-dir", pipeline.diskCache.map { "\($0.folder) (\($0.maxBytes >> 20) MiB)" } ?? "(none)"),
            ("memory-cache", "\(pipeline.memoryCacheBytes >> 20) MiB"),
            ("workers", "\(pipeline.workers)"),
            ("max-jobs", "\(pipeline.maxJobs)"),
            ("memory-budget", "\(pipeline.memoryBudget >> 20) MiB"),
            ("max-connections", requests.maxConnections.map(String.init) ?? "(from the file-descriptor limit)"),
            ("header-timeout", "\(requests.headerTimeout)"),
            ("body-timeout", "\(requests.bodyTimeout), at least \(requests.bodyMinRate) bytes/s after \(requests.bodyGrace)"),
            ("body-memory", "\(requests.maxBodyMemory >> 20) MiB"),
            ("metrics-networks", metrics ? metricsNetworks.map(\.description).joined(separator: ", ") : "(metrics off)"),
            ("max-age", "\(maxAge) s"),
            ("auto-webp", "\(autoWebP)"),
            ("request-timeout", "\(requestTimeout)"),
            ("max-body", "\(maxBodyBytes) bytes"),
            ("limits", "input \(limits.maxInputBytes >> 20) MiB, \(limits.maxPixels) px; output \(limits.maxOutputSide) px a side, \(limits.maxOutputPixels) px"),
            ("network", Self.describe(pipeline.network.addressPolicy)),
            ("allowed-sources", pipeline.network.allowedSources.isEmpty ? "(any host)" : pipeline.network.allowedSources.description),
            ("models", pipeline.modelsPath ?? "(searched)"),
        ]
    }

    /// A database URL with its password masked.
    static func maskPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(unparsable)"
    }

    static func describe(_ policy: AddressPolicy) -> String {
        var parts = [policy.refusesSpecialPurpose ? "public addresses only" : "any address"]
        if !policy.allowedNetworks.isEmpty { parts.append("also " + policy.allowedNetworks.map(\.description).joined(separator: ", ")) }
        if !policy.deniedNetworks.isEmpty { parts.append("never " + policy.deniedNetworks.map(\.description).joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
