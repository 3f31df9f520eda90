import Crypto
import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web page and `<focal-img>`: the files of the `Web` folder, read once at start-up (the
/// element's with the crop option table written in) and served with their type, an ETag, and `Cache-Control: no-cache` (revalidated each time, so a
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
            guard var data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else { continue }
            if name == "focal-img.js" { data = Self.withCropOptions(data) }
            if name == "overlay.js" { data = Self.replacing(Self.kindsMarker, with: Self.kindsJSON, in: data) }
            if name == "app.css" { data = Self.replacing(Self.kindColoursMarker, with: Self.kindColours, in: data) }
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            files[name] = Asset(data: data, type: Self.type(of: name), tag: "\"\(digest)\"")
        }
        self.files = files
    }

    /// The marker in `focal-img.js` that the crop option table replaces.
    static let cropOptionsMarker = "/*focal:crop-options*/[]"

    /// The script with the option table (`CropOption.elementJSON`) in place of its marker, so the
    /// element takes exactly the options this server does.
    static func withCropOptions(_ script: Data) -> Data {
        let text = String(decoding: script, as: UTF8.self)
        return Data(text.replacingOccurrences(of: cropOptionsMarker, with: CropOption.elementJSON).utf8)
    }

    /// The marker in `overlay.js` that the kind table replaces.
    static let kindsMarker = "/*focal:kinds*/{}"
    /// The marker in `app.css` that the kinds' colour variables replace.
    static let kindColoursMarker = "/*focal:kind-colours*/"

    /// `{"face":{"label":"Face","colour":"#22c55e"},...}`: each kind's label and colour.
    static var kindsJSON: String {
        let entries = SubjectKind.allCases.map { kind in
            "\"\(kind.rawValue)\":{\"label\":\"\(kind.traits.label)\",\"colour\":\"\(kind.traits.colour)\"}"
        }
        return "{" + entries.joined(separator: ",") + "}"
    }

    /// `--kind-face: #22c55e;` and so on, one line per kind.
    static var kindColours: String {
        SubjectKind.allCases.map { "--kind-\($0.rawValue): \($0.traits.colour);" }.joined(separator: "\n  ")
    }

    static func replacing(_ marker: String, with text: String, in data: Data) -> Data {
        Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: marker, with: text).utf8)
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
