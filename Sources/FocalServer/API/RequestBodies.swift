import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Reads request bodies as the JSON API takes them: bounded while they stream, decoded with a
/// message that names what is wrong, and on a signed-only server authorized (a request signature
/// over the body's bytes, or the token).
struct RequestBodies: Sendable {
    /// The largest JSON body.
    let maxJSONBytes: Int
    /// Whether reads need a signature or the token.
    let signedOnly: Bool
    let authorization: Authorization

    /// Reads a JSON body, bounded while it streams (`RequestLimits.maxJSONBytes`).
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer = try await Self.collect(&request, limit: maxJSONBytes)
        return try Self.decode(T.self, from: buffer)
    }

    /// Reads a JSON body that a signed-only server must see signed (or the token): the signature
    /// covers the body's bytes. A body `isPublic` accepts needs neither.
    func decodeRead<T: Decodable>(_ type: T.Type, from request: Request, public isPublic: (T) -> Bool = { _ in false }) async throws -> T {
        var request = request
        let buffer = try await Self.collect(&request, limit: maxJSONBytes)
        guard signedOnly else { return try Self.decode(T.self, from: buffer) }
        let body = try? Self.decode(T.self, from: buffer)
        if body.map(isPublic) != true { try authorization.checkRead(request, body: buffer) }
        return try body ?? Self.decode(T.self, from: buffer)
    }

    /// Checks a body-less read of the JSON API on a signed-only server.
    func authorizeRead(_ request: Request, public isPublic: Bool = false) throws(ServerError) {
        guard signedOnly, !isPublic else { return }
        try authorization.checkRead(request)
    }

    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw ServerError.invalid("the JSON body is not what this endpoint takes: \(describe(error))")
        } catch {
            throw ServerError.invalid("the body is not valid JSON")
        }
    }

    /// The body, refused with 413 as soon as it passes `limit` bytes. A body that ends before its
    /// `Content-Length` (the client went away) is `client.aborted`, never handled as if whole.
    static func collect(_ request: inout Request, limit: Int) async throws -> ByteBuffer {
        do {
            let body = try await request.collectBody(upTo: limit)
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), body.readableBytes < declared {
                throw ServerError(.clientAborted, "the body ended after \(body.readableBytes) of \(declared) bytes")
            }
            return body
        } catch is NIOTooManyBytesError {
            throw ServerError(.requestTooLarge, "the body is larger than \(limit) bytes")
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw ServerError(.requestTooLarge, "the body is larger than \(limit) bytes")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): "\"\(key.stringValue)\" is missing"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            context.codingPath.map(\.stringValue).joined(separator: ".").isEmpty
                ? context.debugDescription : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not valid"
        @unknown default: "it does not decode"
        }
    }
}
