import Focal
import Foundation
import Hummingbird

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
        return (.internalServerError, .internalFailure, "the request failed on the server")
    }

    /// The JSON response for an error.
    static func response(for error: any Error, retryAfter: Int = 1) -> Response {
        let (status, code, message) = describe(error)
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store", .focalError: code.rawValue]
        if status == .tooManyRequests || status == .serviceUnavailable { headers[.retryAfter] = String(retryAfter) }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        let body: [String: Any] = ["status": status.code, "code": code.rawValue, "message": message]
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
