/// An object in a bucket: `s3://BUCKET/KEY`.
///
/// The bucket is a DNS-style name (3–63 characters of `a–z 0–9 . -`); the key is any UTF-8 text
/// of at most 1024 bytes without control characters. Nothing in either can change which store
/// or which bucket a request goes to: the store is the operator's (`ObjectStorageSettings`).
public struct ObjectAddress: Hashable, Sendable, CustomStringConvertible {
    /// The bucket's name.
    public let bucket: String
    /// The object's key (no leading slash).
    public let key: String

    /// An address from its parts, or nil when the bucket is not a bucket name or the key is
    /// empty, too long or holds control characters.
    public init?(bucket: String, key: String) {
        guard Self.isBucketName(bucket), Self.isKey(key) else { return nil }
        self.bucket = bucket
        self.key = key
    }

    /// `s3://BUCKET/KEY` (the key as written, not percent-decoded), or nil for any other text.
    public init?(_ text: String) {
        guard text.lowercased().hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        self.init(bucket: String(rest[..<slash]), key: String(rest[rest.index(after: slash)...]))
    }

    /// Whether `text` starts like an object address (`s3://`), well-formed or not.
    public static func looksLikeOne(_ text: String) -> Bool { text.lowercased().hasPrefix("s3://") }

    /// `s3://BUCKET/KEY`.
    public var description: String { "s3://\(bucket)/\(key)" }

    /// A bucket name as S3 allows it: 3–63 characters of lower-case letters, digits, dots and
    /// hyphens, starting and ending with a letter or digit.
    public static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let inner: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 45 }
        let edge: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) }
        guard let first = bytes.first, let last = bytes.last else { return false }
        return edge(first) && edge(last) && bytes.allSatisfy(inner)
    }

    /// A key S3 stores: 1–1024 bytes of UTF-8 without control characters.
    public static func isKey(_ key: String) -> Bool {
        (1...1024).contains(key.utf8.count) && key.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7f }
    }
}
