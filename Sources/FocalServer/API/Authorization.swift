import Crypto
import Focal
import Foundation
import HTTPTypes
import Hummingbird

/// Who may do what. Writes (uploads, saved crops, signing) need `Authorization: Bearer <token>`;
/// without a token configured they are refused. On a signed-only server (keys, no unsafe URLs)
/// reads of the JSON API need the token or a request signature too, as every image URL needs its
/// URL signature: nothing about the photos is readable by someone who holds neither.
///
/// A request signature is HMAC-SHA256, with any of the URL keys, of
/// `METHOD + " " + path + "\n" + hex(SHA-256(body))` (path without its query; an empty body for a
/// GET), in URL-safe base64 without padding, sent as the header `X-Focal-Signature` or, for a
/// link such as an `<img src>`, as the query parameter `signature`. Every comparison takes the
/// same time whatever the bytes.
struct Authorization: Sendable {
    let token: String?
    let keys: [String]

    /// Throws unless the request carries the token.
    /// - Throws: `ServerError` (`request.unauthorized`).
    func check(_ request: Request) throws(ServerError) {
        guard let token else {
            throw ServerError(.requestUnauthorized, "this service accepts no writes (it has no token configured)")
        }
        guard let given = Self.bearer(request) else {
            throw ServerError(.requestUnauthorized, "writes need the header Authorization: Bearer <token>")
        }
        guard URLSigner.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            throw ServerError(.requestUnauthorized, "the token is not valid")
        }
    }

    /// Throws unless the request carries the token or a valid request signature of its method,
    /// path and `body`.
    /// - Throws: `ServerError` (`request.unauthorized`).
    func checkRead(_ request: Request, body: ByteBuffer? = nil) throws(ServerError) {
        if let token, let given = Self.bearer(request) {
            guard URLSigner.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
                throw ServerError(.requestUnauthorized, "the token is not valid")
            }
            return
        }
        let given = request.headers[.focalSignature] ?? request.uri.queryParameters.get("signature")
        guard let given else {
            throw ServerError(
                .requestUnauthorized,
                "this server is signed-only: reads need the header X-Focal-Signature (a request signature) or Authorization: Bearer <token>")
        }
        let text = Self.signedText(method: request.method.rawValue, path: request.uri.path, body: body)
        var valid = false
        for key in keys {
            valid = URLSigner.constantTimeEqual(Array(given.utf8), Array(Self.signature(of: text, key: key).utf8)) || valid
        }
        guard valid else { throw ServerError(.requestUnauthorized, "the request signature is not valid") }
    }

    /// The request signature of `method`, `path` and `body` with `key`.
    static func signature(method: String, path: String, body: ByteBuffer?, key: String) -> String {
        signature(of: signedText(method: method, path: path, body: body), key: key)
    }

    private static func signedText(method: String, path: String, body: ByteBuffer?) -> String {
        let digest = SHA256.hash(data: body.map { Data($0.readableBytesView) } ?? Data())
        return method.uppercased() + " " + path + "\n" + digest.map { String(format: "%02x", $0) }.joined()
    }

    private static func signature(of text: String, key: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else { return nil }
        return String(header.dropFirst("bearer ".count))
    }
}

extension HTTPField.Name {
    /// A request signature of the JSON API (see `Authorization`).
    static var focalSignature: Self { Self("X-Focal-Signature")! }
}
