import FocalCore
public import Foundation

/// Where objects (`s3://BUCKET/KEY`) are read from and written to, and how: any S3-compatible
/// store (AWS, SeaweedFS, MinIO, Ceph RGW, R2), its credentials, deadlines and retries.
///
/// The endpoint is the operator's choice, so it may be on loopback or a private network; the
/// address policy for URL sources does not apply to it. An address names a bucket and a key,
/// never a store.
///
/// ```swift
/// var storage = try ObjectStorageSettings(environment: ProcessInfo.processInfo.environment)
/// storage?.endpoint = URL(string: "http://127.0.0.1:8333")
/// ```
public struct ObjectStorageSettings: Hashable, Sendable {
    /// The store's base URL (`http://127.0.0.1:8333`, `https://ACCOUNT.r2.cloudflarestorage.com`);
    /// nil for AWS, `https://s3.REGION.amazonaws.com`. Default nil.
    public var endpoint: URL?
    /// The region requests are signed for; default `us-east-1`.
    public var region: String
    /// The keys requests are signed with; nil sends them unsigned (a public bucket). Default nil.
    public var credentials: S3Credentials?
    /// Path-style addressing (`ENDPOINT/BUCKET/KEY`) rather than virtual-hosted
    /// (`BUCKET.ENDPOINT/KEY`); nil chooses: path-style for a custom endpoint (self-hosted stores
    /// rarely have a DNS name per bucket) and for bucket names with dots, virtual-hosted for AWS.
    public var pathStyle: Bool?
    /// Time to open a connection; default 2 s.
    public var connectTimeout: Duration
    /// Longest wait for the first byte of an answer, and between bytes after it; default 10 s.
    public var readTimeout: Duration
    /// Time for one whole operation, every retry included; default 30 s.
    public var totalTimeout: Duration
    /// Tries of a request that failed in a way worth trying again (5xx, 429, a reset or refused
    /// connection, a timeout before the answer), with jittered exponential backoff; never after
    /// a 4xx. Default 3.
    public var attempts: Int
    /// Buckets an address from a remote client may name, besides the root's (a server's
    /// setting; the library and the command line read any bucket). Default empty.
    public var allowedBuckets: Set<String>

    /// Creates settings; every parameter defaults to the value documented on its property.
    public init(
        endpoint: URL? = nil, region: String = "us-east-1", credentials: S3Credentials? = nil, pathStyle: Bool? = nil,
        connectTimeout: Duration = .seconds(2), readTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
        attempts: Int = 3, allowedBuckets: Set<String> = []
    ) {
        self.endpoint = endpoint
        self.region = region
        self.credentials = credentials
        self.pathStyle = pathStyle
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.totalTimeout = totalTimeout
        self.attempts = max(1, attempts)
        self.allowedBuckets = allowedBuckets
    }

    /// Settings from the AWS conventions: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`, `AWS_REGION` (or `AWS_DEFAULT_REGION`), `AWS_ENDPOINT_URL_S3` (or
    /// `AWS_ENDPOINT_URL`). Nil when none of them is set.
    /// - Throws: `StorageError` (`storage.not_configured`) for a key id without its secret (or
    ///   the reverse), or an endpoint that is not an http(s) URL with a host.
    public init?(environment: [String: String]) throws(StorageError) {
        let value = { (name: String) -> String? in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let names = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"]
        guard names.contains(where: { value($0) != nil }) else { return nil }
        self.init()
        if let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") {
            guard Self.isRegion(region) else {
                throw StorageError(.storageNotConfigured, address: "s3://", "AWS_REGION is not a region name such as us-east-1 (a-z, 0-9, hyphens)")
            }
            self.region = region
        }
        switch (value("AWS_ACCESS_KEY_ID"), value("AWS_SECRET_ACCESS_KEY")) {
        case let (id?, secret?): credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        case (nil, nil): credentials = nil
        case (_?, nil): throw StorageError(.storageNotConfigured, address: "s3://", "AWS_ACCESS_KEY_ID is set without AWS_SECRET_ACCESS_KEY; set both, or neither for a public bucket")
        case (nil, _?): throw StorageError(.storageNotConfigured, address: "s3://", "AWS_SECRET_ACCESS_KEY is set without AWS_ACCESS_KEY_ID; set both, or neither for a public bucket")
        }
        if let text = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") { endpoint = try Self.endpoint(text) }
    }

    /// An endpoint setting as a URL: http(s), a host, no query; a trailing slash dropped.
    /// - Throws: `StorageError` (`storage.not_configured`) for anything else.
    public static func endpoint(_ text: String) throws(StorageError) -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        let url = URL(string: trimmed)
        // Keys belong in the credentials, never in the endpoint (nor in a message repeating it).
        guard url?.user == nil, url?.password == nil else {
            throw StorageError(.storageNotConfigured, address: "s3://", "the endpoint holds a user name or password; give the keys as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        guard let url, let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty, url.query == nil
        else {
            throw StorageError(.storageNotConfigured, address: "s3://", "the endpoint \"\(text.oneLine)\" is not an http(s) URL with a host, such as http://127.0.0.1:8333")
        }
        return url
    }

    /// Whether `text` is a region name: 1 to 32 of `a–z 0–9 -` (it becomes part of AWS's host name).
    public static func isRegion(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
    }

    /// Whether requests go path-style, for `bucket`.
    func usesPathStyle(for bucket: String) -> Bool {
        if let pathStyle { return pathStyle || bucket.contains(".") }
        return endpoint != nil || bucket.contains(".")
    }
}
