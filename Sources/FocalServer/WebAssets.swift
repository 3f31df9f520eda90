import Crypto
import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page and `<focal-img>`: the files of the `Web` folder, read once at start-up and
/// served with their type, an ETag, and `Cache-Control: no-cache` (revalidated each time, so a
/// new release is picked up at once).
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let data: Data
        let type: String
        let tag: String
    }

    let files: [String: Asset]

    /// Reads the files shipped with the server, or from the checkout when run from its sources.
    init() {
        var files: [String: Asset] = [:]
        let folder = Bundle.module.url(forResource: "Web", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Web")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            files[name] = Asset(data: data, type: Self.type(of: name), tag: "\"\(digest)\"")
        }
        self.files = files
    }

    static func type(of name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }

    /// The response for a file, or 304 when the client has it.
    func response(_ name: String, request: Request) throws -> Response {
        guard let asset = files[name] else { throw ServerError(.requestNotFound, "no such file") }
        var headers: HTTPFields = [.contentType: asset.type, .eTag: asset.tag, .cacheControl: "no-cache"]
        if request.headers[.ifNoneMatch] == asset.tag { return Response(status: .notModified, headers: headers) }
        headers[.contentLength] = String(asset.data.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.data)))
    }
}
