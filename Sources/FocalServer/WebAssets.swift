import CompressNIO
import Crypto
import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page and `<focal-img>`: the files of the `Web` folder, read once at start-up and served
/// as checked in (their tables are generated files: `GeneratedRegion`), each with its type and an ETag, gzipped
/// for clients that take it (text files), under two names:
/// - its own (`/focal-img.js`), with `Cache-Control: no-cache` (revalidated each time, so a new
///   release is picked up at once);
/// - a versioned one (`/focal-img.3f2a9c1b4d5e.js`, the version being the start of the file's
///   SHA-256), with `Cache-Control: public, max-age=31536000, immutable`: a page that names it
///   never asks again, and a new release has a new name. `/v1/config` gives the element's.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let data: Data
        /// The gzip encoding, when the type is text and it is smaller.
        let gzipped: Data?
        let type: String
        /// The first 12 hex digits of the file's SHA-256.
        let version: String
        /// Subresource Integrity of the file as served (decoded): `sha384-<base64>`.
        let integrity: String
        /// The entity tags of the plain and the gzipped bytes.
        var tag: String { "\"\(version)\"" }
        var gzipTag: String { "\"\(version)-gzip\"" }
    }

    let files: [String: Asset]
    /// Each versioned name (`focal-img.3f2a9c1b4d5e.js`) and the file it names.
    let versionedNames: [String: String]

    /// The files, read once per process.
    static let shared = WebAssets()

    /// Reads the files shipped with the server, or from the checkout when run from its sources.
    private init() {
        var files: [String: Asset] = [:]
        let folder = Bundle.module.url(forResource: "Web", withExtension: nil)
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Web")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where !name.hasPrefix(".") {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            let type = Self.type(of: name)
            let version = SHA256.hash(data: data).prefix(6).map { String(format: "%02x", $0) }.joined()
            let integrity = "sha384-" + Data(SHA384.hash(data: data)).base64EncodedString()
            files[name] = Asset(data: data, gzipped: Self.gzipped(data, type: type), type: type, version: version, integrity: integrity)
        }
        self.files = files
        // A file already named like another's versioned name keeps its own: never two routes for one path.
        versionedNames = Dictionary(files.map { (Self.versionedName($0.key, $0.value.version), $0.key) }) { first, _ in first }
            .filter { files[$0.key] == nil }
    }

    /// `focal-img.js` with version `v` is `focal-img.v.js`.
    static func versionedName(_ name: String, _ version: String) -> String {
        let ext = (name as NSString).pathExtension
        let stem = (name as NSString).deletingPathExtension
        return ext.isEmpty ? "\(name).\(version)" : "\(stem).\(version).\(ext)"
    }

    /// The versioned path of a file (`/focal-img.3f2a9c1b4d5e.js`), or nil when there is none.
    func versionedPath(of name: String) -> String? {
        files[name].map { "/" + Self.versionedName(name, $0.version) }
    }

    /// The gzip encoding of a text file (best compression: it is made once), when it is smaller.
    static func gzipped(_ data: Data, type: String) -> Data? {
        guard type.hasPrefix("text/") || type.hasPrefix("application/json") || type.hasPrefix("image/svg") else { return nil }
        var buffer = ByteBuffer(bytes: data)
        guard let compressed = try? buffer.compress(with: .gzip(configuration: .init(compressionLevel: 9))),
            compressed.readableBytes < data.count
        else { return nil }
        return Data(compressed.readableBytesView)
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

    /// The response for a file, or 304 when the client has it: gzipped when the client accepts
    /// gzip and the file has that encoding (`Vary: Accept-Encoding` either way).
    /// - Parameters:
    ///   - name: The file's own name.
    ///   - immutable: Whether it was asked for by its versioned name (cached for a year).
    func response(_ name: String, request: Request, immutable: Bool = false) throws -> Response {
        guard let asset = files[name] else { throw ServerError(.requestNotFound, "no such file") }
        let encodings = HTTPAcceptList.accepted(request.headers[.acceptEncoding])
        let gzip = asset.gzipped != nil && (encodings.contains("gzip") || encodings.contains("x-gzip"))
        let tag = gzip ? asset.gzipTag : asset.tag
        var headers: HTTPFields = [
            .contentType: asset.type, .eTag: tag,
            .cacheControl: immutable ? "public, max-age=31536000, immutable" : "no-cache",
        ]
        if asset.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        if let match = request.headers[.ifNoneMatch],
            match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag })
        {
            return Response(status: .notModified, headers: headers)
        }
        let body = gzip ? (asset.gzipped ?? asset.data) : asset.data
        if gzip { headers[.contentEncoding] = "gzip" }
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
