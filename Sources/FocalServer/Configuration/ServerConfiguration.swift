public import Focal
import Foundation
public import Logging

/// Everything `focal serve` is configured with. Every setting has a default that suits one
/// machine serving its own photos on loopback; `focal serve` reads its flags, `FOCAL_*`
/// environment variables and defaults into one with `init(flags:environment:)`, from the settings
/// declared in `ServeSetting.all`.
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
    /// The presets URLs may use (`filters:preset(NAME)`), by name; default none.
    public var presets: [String: Preset] = [:]
    /// Whether image URLs must use a preset (and no filter besides it but `presetFilters`);
    /// default `false`.
    public var presetsOnly = false
    /// The filters a URL may give beside its preset when `presetsOnly`; default `expire`.
    public var presetFilters: Set<String> = ["expire"]
    /// The bearer token that writes (uploads, overrides) need; default none: writes are refused.
    public var token: String?
    /// `Cache-Control: public, max-age` of image responses, in seconds; default 86400 (a day).
    public var maxAge: Int
    /// `Timing-Allow-Origin` of every answer, so that pages of those origins read images' timing
    /// and sizes (Resource Timing, LCP); nil sends none. Default `*`.
    public var timingAllowOrigin: String?
    /// Whether WebP is sent to clients that accept it when the URL names no format (then
    /// responses carry `Vary: Accept`); default `false`.
    public var autoWebP: Bool
    /// Whether a URL that names no format gets the automatic format, as `format(auto)` would: AVIF,
    /// WebP or JPEG by the request's `Accept` (then responses carry `Vary: Accept`); default
    /// `false`. It wins over `autoWebP`.
    public var autoFormat: Bool
    /// The longest any request may take before it is answered 503; default 30 s.
    public var requestTimeout: Duration
    /// A redaction every image this server sends gets (`--redact`), whatever its URL asks: a
    /// URL's own redaction keeps its style and hides these kinds too; originals need the token.
    /// Default nil.
    public var redact: Redaction?
    /// The time one plan's (or `meta/`'s) inline previews may take together; past it the rest are
    /// left out. Default 3 s; not a flag (tests on a loaded machine raise it).
    public var previewBudget: Duration = .seconds(3)
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
    /// The proxies (a cache, a load balancer) whose `X-Forwarded-For` names the client, for
    /// sharing the job places and memory between clients (`ClientLanes`); default loopback only.
    /// A proxy on another machine must be listed, or all its clients count as one.
    public var trustedProxies: [IPNetwork] = ServerConfiguration.loopback
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
    /// The least severe level the server's log writes; default `info`.
    public var logLevel: Logger.Level

    /// Creates a configuration; every parameter defaults to the value documented on its property.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, root: String? = nil, keys: [String] = [], allowUnsafe: Bool = false,
        token: String? = nil, maxAge: Int = 86_400, timingAllowOrigin: String? = "*", autoWebP: Bool = false, autoFormat: Bool = false, requestTimeout: Duration = .seconds(30),
        maxBodyBytes: Int? = nil, dataDirectory: String? = nil, metrics: Bool = true,
        metricsNetworks: [IPNetwork] = ServerConfiguration.loopback, publicPhotos: Bool = false,
        requests: RequestLimits = RequestLimits(), database: String? = nil, pipeline: FocalConfiguration = FocalConfiguration(),
        logLevel: Logger.Level = .info
    ) {
        self.host = host
        self.port = port
        self.root = root
        self.keys = keys
        self.allowUnsafe = allowUnsafe
        self.token = token
        self.maxAge = maxAge
        self.timingAllowOrigin = timingAllowOrigin
        self.autoWebP = autoWebP
        self.autoFormat = autoFormat
        self.requestTimeout = requestTimeout
        self.maxBodyBytes = maxBodyBytes ?? pipeline.limits.maxInputBytes
        self.dataDirectory = dataDirectory
        self.metrics = metrics
        self.metricsNetworks = metricsNetworks
        self.publicPhotos = publicPhotos
        self.requests = requests
        self.database = database
        self.pipeline = pipeline
        self.logLevel = logLevel
    }

    /// Loopback: `127.0.0.0/8` and `::1`.
    public static var loopback: [IPNetwork] { ["127.0.0.0/8", "::1/128"].compactMap { try? IPNetwork($0) } }

    /// Whether the server is signed-only: keys, and no unsafe URLs. Then every read of the JSON
    /// API needs a signature or the token (see `Authorization`).
    public var signedOnly: Bool { !keys.isEmpty && !allowUnsafe }

    /// The settings as `name value` pairs for the start-up log: the version, every setting of
    /// `ServeSetting.all` under its flag's name, then the bounds no flag sets. Secrets are never
    /// shown, not even in part: keys and the token as whether they are set, the database URL with
    /// its password masked.
    public var summary: [(String, String)] {
        let limits = pipeline.limits
        return [("version", FocalVersion.string)] + ServeSetting.all.map { ($0.name, $0.show(self)) } + [
            ("max-body", "\(maxBodyBytes) bytes"),
            ("limits", "input \(limits.maxInputBytes >> 20) MiB, \(limits.maxPixels) px; output \(limits.maxOutputSide) px a side, \(limits.maxOutputPixels) px"),
        ]
    }

    /// The shortest key that is not warned about: 24 bytes (as `head -c 24 /dev/urandom | base64`
    /// gives 32 characters), out of reach of guessing and of offline searches from a signed URL.
    public static let safeKeyBytes = 24

    /// What the start-up log warns about, each a line an operator should act on: keys shorter than
    /// `safeKeyBytes` (anyone who finds one can sign any URL), a token as short, unsafe URLs on an
    /// address others can reach. None of them stops the start: a test or a demo may want them.
    public var startWarnings: [String] {
        var warnings: [String] = []
        for (index, key) in keys.enumerated() where key.utf8.count < Self.safeKeyBytes {
            warnings.append(
                "key \(index + 1) of \(keys.count) is only \(key.utf8.count) bytes: a short key can be guessed from one signed URL, and then anyone can sign any URL; use \(Self.safeKeyBytes) random bytes or more (head -c 24 /dev/urandom | base64)")
        }
        if let token, token.utf8.count < Self.safeKeyBytes {
            warnings.append("the token is only \(token.utf8.count) bytes: use \(Self.safeKeyBytes) random bytes or more, it lets anyone who has it write")
        }
        if allowUnsafe && !["127.0.0.1", "::1", "localhost"].contains(host) {
            warnings.append("unsafe URLs are served on a non-loopback address: anyone who reaches it can ask for any crop")
        }
        return warnings
    }

    /// The address policy in words: `public addresses only; also 10.0.0.0/8`.
    static func describe(_ policy: AddressPolicy) -> String {
        var parts = [policy.refusesSpecialPurpose ? "public addresses only" : "any address"]
        if !policy.allowedNetworks.isEmpty { parts.append("also " + policy.allowedNetworks.map(\.description).joined(separator: ", ")) }
        if !policy.deniedNetworks.isEmpty { parts.append("never " + policy.deniedNetworks.map(\.description).joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
