import Crypto
import Foundation

/// thumbor's URL signatures: HMAC-SHA1 of the path after the signature, in URL-safe base64
/// (28 characters with padding), as libthumbor and thumbor compute them. Several keys verify,
/// so that a key can be rotated without breaking URLs already handed out.
public struct URLSigner: Sendable {
    /// The keys; the first signs.
    public let keys: [String]

    /// Creates a signer.
    /// - Parameter keys: The keys; the first signs, every one verifies.
    public init(keys: [String]) { self.keys = keys }

    /// The signature of `path` with `key`.
    public static func signature(of path: String, key: String) -> String {
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(path.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// The signature of `path` with the first key, or nil when there is no key.
    public func sign(_ path: String) -> String? { keys.first.map { Self.signature(of: path, key: $0) } }

    /// Whether `signature` is `path`'s signature under any key. Every key is tried and every
    /// comparison takes the same time whatever the bytes, so timing tells nothing.
    public func verify(_ signature: String, path: String) -> Bool {
        // Compared as sent, byte for byte: a signature spelled another way (`%3D` for `=`) is
        // another URL, which a cache in front would keep apart.
        let given = Array(signature.utf8)
        var valid = false
        for key in keys {
            let expected = Array(Self.signature(of: path, key: key).utf8)
            valid = Self.constantTimeEqual(given, expected) || valid
        }
        return valid
    }

    /// Compares two byte strings in time that depends only on their lengths; strings of
    /// different lengths are never equal (whatever the difference, not only modulo 256).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
