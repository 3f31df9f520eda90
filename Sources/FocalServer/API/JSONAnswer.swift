import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// JSON answers: a document encoded as every Focal document is (`DocumentEncoding`), with
/// `Content-Type: application/json` and, unless given, `Cache-Control: no-store`.
enum JSONAnswer {
    /// A JSON response of a document.
    static func make(_ document: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        make(data: DocumentEncoding.data(document), status: status, headers: headers)
    }

    /// A JSON response from encoded bytes.
    static func make(data: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
