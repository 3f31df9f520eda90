import Crypto
package import Foundation

/// AWS Signature Version 4 for S3 requests (`AWS4-HMAC-SHA256`), as AWS documents it: a
/// canonical request (method, URI-encoded path, sorted query, sorted signed headers, payload
/// hash), a string to sign over the day's scope, and a key derived from the secret for that day,
/// region and service. Works for any S3-compatible store (SeaweedFS, MinIO, Ceph RGW, R2, AWS).
package struct S3Signer: Sendable {
    /// The keys requests are signed with.
    package let credentials: S3Credentials
    /// The region of the scope, e.g. `us-east-1`.
    package let region: String
    /// The service of the scope: `s3`.
    package let service = "s3"

    /// A signer for `credentials` in `region`.
    package init(credentials: S3Credentials, region: String) {
        self.credentials = credentials
        self.region = region
    }

    /// The SHA-256 of no bytes, the payload hash of a GET, HEAD or list.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers to add to a request so that S3 accepts it: `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` with a session token, and `Authorization`.
    /// - Parameters:
    ///   - method: `GET`, `HEAD`, `PUT`, ...
    ///   - host: The `Host` header exactly as sent (with `:port` when it is not the default).
    ///   - path: The path as it will be sent, already percent-encoded (`S3Signer.encodePath`).
    ///   - query: The query parameters, not encoded; they are signed sorted, encoded.
    ///   - headers: Other headers sent and signed (e.g. `range`), names in any case.
    ///   - payloadHash: The hex SHA-256 of the body (`emptyPayloadHash` for none).
    ///   - date: The time of signing; the server refuses a request more than 15 minutes off.
    package func headers(
        method: String, host: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        payloadHash: String = S3Signer.emptyPayloadHash, date: Date
    ) -> [(String, String)] {
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        var signed: [(String, String)] = headers.map { ($0.0.lowercased(), Self.trimmed($0.1)) }
        signed.append(("host", host))
        signed.append(("x-amz-content-sha256", payloadHash))
        signed.append(("x-amz-date", stamp))
        if let token = credentials.sessionToken { signed.append(("x-amz-security-token", token)) }
        signed.sort { $0.0 < $1.0 }
        let names = signed.map(\.0).joined(separator: ";")
        let canonical = [
            method, path, Self.canonicalQuery(query),
            signed.map { "\($0.0):\($0.1)\n" }.joined(), names, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let toSign = "AWS4-HMAC-SHA256\n\(stamp)\n\(scope)\n" + Self.hex(SHA256.hash(data: Data(canonical.utf8)))
        var key = SymmetricKey(data: Data(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key))
        var out = signed.filter { $0.0.hasPrefix("x-amz-") }
        out.append(("authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)"))
        return out
    }

    /// `20130524T000000Z`: the signing time in UTC.
    package static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year: Int = Int(parts.tm_year) + 1900
        let month: Int = Int(parts.tm_mon) + 1
        let fields: [Int] = [Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)]
        let two = fields.map { $0 < 10 ? "0\($0)" : "\($0)" }
        return "\(year)" + (month < 10 ? "0\(month)" : "\(month)") + two[0] + "T" + two[1] + two[2] + two[3] + "Z"
    }

    /// The query as signed: each name and value encoded (`/` too), sorted by name then value.
    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (encode($0.0, keepSlash: false), encode($0.1, keepSlash: false)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// A key as a URL path: `/` kept, every other byte but `A–Z a–z 0–9 - _ . ~` percent-encoded.
    package static func encodePath(_ path: String) -> String { encode(path, keepSlash: true) }

    /// AWS's URI encoding of `text`'s UTF-8 bytes, with upper-case hex digits.
    package static func encode(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out.append("%")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xf)])
            }
        }
        return out
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")

    /// A header value as signed: spaces at the ends dropped, runs of spaces inside made one.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Lower-case hex of a digest.
    package static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
