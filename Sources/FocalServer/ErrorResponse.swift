import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The one place errors become HTTP responses: a status from the error's code, and a JSON body
/// `{"status", "code", "message"}` with the message that is safe to show. Nothing of an error
/// but its public message reaches the client; `Cache-Control: no-store` keeps it out of caches.
enum ErrorResponse {
    /// The status, code and public message of any error.
    static func describe(_ error: any Error) -> (status: HTTPResponse.Status, code: ErrorCode, message: String) {
        if let error = error as? any FocalError {
            var status = HTTPResponse.Status(for: error.code)
            // A source that answers 404 or 410 is a missing source.
            if let fetch = error as? FetchError, fetch.code == .fetchStatus, fetch.status == 404 || fetch.status == 410 {
                status = .notFound
            }
            return (status, error.code, error.publicMessage)
        }
        if let error = error as? HTTPError {
            let code: ErrorCode =
                switch error.status {
                case .notFound: .requestNotFound
                case .contentTooLarge: .requestTooLarge
                case .methodNotAllowed, .badRequest: .requestInvalid
                default: .internalFailure
                }
            let message = error.status == .notFound ? "no such route" : (error.body ?? error.status.reasonPhrase)
            return (error.status, code, message)
        }
        if error is CancellationError {
            return (.serviceUnavailable, .serverTimeout, "the request was cancelled")
        }
        if isClientGone(error) {
            return (HTTPResponse.Status(for: .clientAborted), .clientAborted, "the client closed the connection")
        }
        return (.internalServerError, .internalFailure, "the request failed on the server")
    }

    /// Whether an error says the client went away (its connection closed or reset while its
    /// body was read or its answer written): logged as `client.aborted`, not as a failure.
    static func isClientGone(_ error: any Error) -> Bool {
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: return true
            default: return false
            }
        }
        if let error = error as? IOError { return [ECONNRESET, EPIPE, ENOTCONN].contains(error.errnoCode) }
        return false
    }

    /// The head and body of an error's JSON response, for a channel handler that answers before
    /// a request reaches the router (`Connection: close`).
    static func parts(for error: ServerError) -> (HTTPResponse, ByteBuffer) {
        let status = HTTPResponse.Status(for: error.code)
        let body = ByteBuffer(bytes: data(status: status, code: error.code, message: error.publicMessage))
        var head = HTTPResponse(status: status)
        head.headerFields = headers(status: status, code: error.code)
        head.headerFields[.connection] = "close"
        head.headerFields[.contentLength] = String(body.readableBytes)
        return (head, body)
    }

    /// The headers of every error response.
    static func headers(status: HTTPResponse.Status, code: ErrorCode, retryAfter: Int = 1) -> HTTPFields {
        var headers: HTTPFields = [
            .contentType: "application/json", .cacheControl: "no-store", .focalError: code.rawValue, .xContentTypeOptions: "nosniff",
        ]
        if status == .tooManyRequests || status == .serviceUnavailable { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return headers
    }

    /// The longest message an error body carries: whatever a message echoes of a request stays
    /// small (a 64 KiB path cannot come back whole).
    static let maxMessage = 600

    static func data(status: HTTPResponse.Status, code: ErrorCode, message: String) -> Data {
        DocumentEncoding.data(ErrorDocument(status: status.code, code: code.rawValue, message: message.excerpt(maxMessage)))
    }

    /// The JSON response for an error.
    static func response(for error: any Error, retryAfter: Int = 1) -> Response {
        let (status, code, message) = describe(error)
        let headers = headers(status: status, code: code, retryAfter: retryAfter)
        let data = data(status: status, code: code, message: message)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
