/// The keys S3 requests are signed with: an access key id, its secret, and for temporary
/// credentials a session token. Printing one shows the key id and masks the rest, so that no
/// secret reaches a log line.
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `AKIAIOSFODNN7EXAMPLE`: names the key; not a secret.
    public let accessKeyID: String
    /// The secret; never printed.
    public let secretAccessKey: String
    /// A temporary session's token (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`; never printed.
    public let sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The key id with the secret (and token) masked.
    public var description: String {
        "\(accessKeyID) (secret ****\(sessionToken == nil ? "" : ", session token ****"))"
    }

    /// The same as `description`: debugging output never shows a secret either.
    public var debugDescription: String { "S3Credentials(\(description))" }

    /// What `dump` and the debugger show: the key id only.
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID], displayStyle: .struct) }
}
