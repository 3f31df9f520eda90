public import FocalCore

/// Why an object could not be read, written or listed. Every message names the object (never
/// a credential): the store's own words go to `cause`, for logs.
public struct StorageError: FocalError, Hashable {
    /// `storage.invalid_address`, `storage.not_allowed`, `storage.not_configured`,
    /// `storage.not_found`, `storage.refused`, `storage.unavailable` or `storage.too_large`.
    public var code: ErrorCode
    /// The object or bucket, as `s3://BUCKET/KEY`.
    public var address: String
    /// What went wrong and what to do, for the person running Focal.
    public var message: String
    /// The store's HTTP status, when it answered.
    public var status: Int?
    /// The store's error code and words, for logs.
    public var cause: String?

    /// Creates an error.
    public init(_ code: ErrorCode, address: String, _ message: String, status: Int? = nil, cause: String? = nil) {
        self.code = code
        self.address = address
        self.message = message
        self.status = status
        self.cause = cause
    }

    /// A sentence for a remote user: what happened, without the store's address or words.
    public var publicMessage: String {
        switch code {
        case .storageInvalidAddress: "the object address is not s3://BUCKET/KEY with a valid bucket name and key"
        case .storageNotAllowed: "the bucket is not one this server reads"
        case .storageNotConfigured: "this server reads no object storage"
        case .storageNotFound: "no such image in the bucket"
        case .storageRefused: "the object storage refused this server's request (its credentials, permissions, bucket or endpoint); the log says why"
        case .storageUnavailable: "the object storage could not be reached in time; try again shortly"
        case .storageTooLarge: "the object is larger than the byte limit"
        default: "the object could not be read"
        }
    }

    public var description: String { "\(address.oneLine): \(message.oneLine)" }

    public var detail: String { description + (cause.map { " [\($0.oneLine)]" } ?? "") }
}
