public import Focal

/// A bucket as the root: `s3://BUCKET` or `s3://BUCKET/PREFIX`. Relative paths name the keys
/// under the prefix, as they name files under a root folder.
public struct BucketRoot: Hashable, Sendable, CustomStringConvertible {
    /// The bucket.
    public let bucket: String
    /// The keys' common start: empty, or ending in `/`.
    public let prefix: String

    /// The root `text` names, or nil when it is not `s3://BUCKET[/PREFIX]` with a valid bucket.
    public init?(_ text: String) {
        guard ObjectAddress.looksLikeOne(text) else { return nil }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        var prefix = String(rest.dropFirst(bucket.count)).drop { $0 == "/" }.description
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        guard ObjectAddress.isBucketName(bucket), !prefix.contains("//"), prefix.utf8.count <= 512 else { return nil }
        self.bucket = bucket
        self.prefix = prefix
    }

    /// The object a relative path names (checked by the caller), or nil when the key is not one.
    public func address(_ relative: String) -> ObjectAddress? { ObjectAddress(bucket: bucket, key: prefix + relative) }

    /// The relative path of a key under the prefix, or nil for one outside it.
    public func relative(_ key: String) -> String? {
        guard key.hasPrefix(prefix), key.count > prefix.count else { return nil }
        return String(key.dropFirst(prefix.count))
    }

    /// Where uploads are kept: `PREFIX.focal-uploads/`, a folder no request path can name (its
    /// name starts with a dot).
    public var uploadsPrefix: String { prefix + ".focal-uploads/" }

    /// `s3://BUCKET/PREFIX`.
    public var description: String { "s3://\(bucket)/\(prefix)" }
}
