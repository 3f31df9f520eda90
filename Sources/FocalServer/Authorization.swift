import Focal
import Hummingbird

/// Writes (uploads, overrides) need `Authorization: Bearer <token>`; without a token configured
/// they are refused. The comparison takes the same time whatever the bytes.
struct Authorization: Sendable {
    let token: String?

    /// Throws unless the request carries the token.
    /// - Throws: `ServerError` (`request.unauthorized`).
    func check(_ request: Request) throws(ServerError) {
        guard let token else {
            throw ServerError(.requestUnauthorized, "this service accepts no writes (it has no token configured)")
        }
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw ServerError(.requestUnauthorized, "writes need the header Authorization: Bearer <token>")
        }
        let given = Array(header.dropFirst("bearer ".count).utf8), expected = Array(token.utf8)
        guard URLSigner.constantTimeEqual(given, expected) else {
            throw ServerError(.requestUnauthorized, "the token is not valid")
        }
    }
}
