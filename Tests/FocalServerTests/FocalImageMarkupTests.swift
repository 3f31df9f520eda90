import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `FocalImageMarkup`: the `<img srcset>` markup a Swift page writes, checked by parsing it back
/// and by requesting every candidate from a signed server.
@Suite struct FocalImageMarkupTests {
    /// The `srcset` candidates of some markup: (URL, width descriptor).
    static func candidates(_ html: String) -> [(url: String, width: Int)] {
        guard let start = html.range(of: "srcset=\""), let end = html[start.upperBound...].firstIndex(of: "\"") else { return [] }
        return html[start.upperBound..<end].components(separatedBy: ", ").compactMap { entry in
            let parts = entry.split(separator: " ")
            guard parts.count == 2, parts[1].hasSuffix("w"), let width = Int(parts[1].dropLast()) else { return nil }
            return (String(parts[0]), width)
        }
    }

    @Test("every candidate is a signed smart crop of exactly the aspect, and the server serves each at that size")
    func candidatesServeAtTheirSizes() async throws {
        let markup = FocalImageMarkup(server: "http://localhost/", key: TestSecrets.keys[0])
        let html = try markup.html(source: "chelsea.png", alt: "A cat", aspect: (16, 9), sizes: "50vw", loading: .eager, fetchPriority: "high")
        let found = Self.candidates(html)
        #expect(found.map(\.width) == [320, 480, 640, 800, 1024, 1280, 1600, 1920], "the widths focal-img.js's focalImgMarkup uses")
        #expect(html.contains("width=\"640\" height=\"360\""), "width and height reserve the box")
        #expect(html.contains("loading=\"eager\"") && html.contains("fetchpriority=\"high\"") && html.contains("sizes=\"50vw\""))
        #expect(html.hasPrefix("<focal-img src=\"chelsea.png\" server=\"http://localhost\" aspect=\"16:9\""))
        #expect(html.hasSuffix("</focal-img>"))
        let lazy = try markup.html(source: "chelsea.png", alt: "A cat", aspect: (16, 9), sizes: "50vw")
        #expect(lazy.contains("sizes=\"50vw\"") && lazy.contains("loading=\"lazy\""),
                "sizes as given: no `auto, ` (with JavaScript off it costs a viewport-wide download first)")
        #expect(try markup.html(source: "chelsea.png", alt: "", aspect: (1, 1), sizes: "auto, 50vw").contains("sizes=\"auto, 50vw\""))
        try await withServer({ $0.allowUnsafe = false }) { client in
            for (url, width) in found.prefix(3) {
                let path = String(url.dropFirst("http://localhost".count))
                #expect(path.contains("/smart/filters:format(auto)/chelsea.png"))
                try await client.execute(uri: path, method: .get, headers: [.accept: "image/avif"]) { response in
                    #expect(response.status == .ok, "\(path)")
                    #expect(response.headers[.contentType] == "image/avif")
                    #expect(response.imageSize == PixelSize(width: width, height: width * 9 / 16))
                }
            }
        }
    }

    @Test("with the version /v1/plan gives, every candidate carries ?v= and is answered immutable")
    func versionedCandidates() async throws {
        let markup = FocalImageMarkup(server: "http://localhost", widths: [320, 640])
        let version = try await withServer { client in
            try await client.execute(
                uri: "/v1/plan", method: .post, body: ByteBuffer(string: #"{"source":{"path":"chelsea.png"},"frames":[{"aspect":"16:9"}]}"#)
            ) { ((($0.json?["frames"] as? [[String: Any]])?.first)?["version"] as? String) ?? "" }
        }
        let html = try markup.html(source: "chelsea.png", alt: "A cat", aspect: (16, 9), version: version)
        let found = Self.candidates(html)
        #expect(found.count == 2 && found.allSatisfy { $0.url.hasSuffix("/chelsea.png?v=" + version) }, "\(found)")
        #expect(html.hasPrefix("<focal-img ") && html.contains(" version=\"\(version)\">"), "the element's own requests carry it too")
        try await withServer({ $0.allowUnsafe = true }) { client in
            for (url, _) in found {
                try await client.execute(uri: String(url.dropFirst("http://localhost".count)), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.cacheControl] == "public, max-age=31536000, s-maxage=86400, immutable", "\(url)")
                }
            }
        }
        // The inline preview /v1/plan gives: under the image, and the element's placeholder.
        let preview = try await withServer { client in
            try await client.execute(
                uri: "/v1/plan", method: .post,
                body: ByteBuffer(string: #"{"source":{"path":"chelsea.png"},"frames":[{"aspect":"16:9"}],"previews":true}"#)
            ) { ((($0.json?["frames"] as? [[String: Any]])?.first)?["preview"] as? String) ?? "" }
        }
        let withPreview = try markup.html(source: "chelsea.png", alt: "", aspect: (16, 9), preview: preview)
        #expect(withPreview.contains(" preview=\"\(preview)\"") && withPreview.contains("background:url(&quot;\(preview)&quot;)"))
        for bad in ["https://evil.example/x.png", "data:text/html;base64,PGgxPg==", "data:image/png;base64,\"><b>", preview + "\""] {
            #expect(!(try markup.html(source: "chelsea.png", alt: "", aspect: (1, 1), preview: bad)).contains("preview="), "\(bad)")
        }
        for bad in ["", "abc", version.uppercased(), version + ".x", version + ".1.2", "\"><script>", version + "&v=1"] {
            let other = try markup.html(source: "chelsea.png", alt: "", aspect: (16, 9), version: bad)
            #expect(!other.contains("?v=") && !other.contains("version="), "not a version: \(bad)")
        }
    }

    @Test("without a key the URLs are unsafe/; widths snap to the aspect; odd widths are ignored")
    func unsafeAndWidths() throws {
        let markup = FocalImageMarkup(server: "https://img.example", widths: [500, 0, -3, 100_000, 250])
        let html = try markup.html(source: "a b/c.jpg", alt: "", aspect: (4, 3))
        #expect(Self.candidates(html).map(\.url) == [
            "https://img.example/unsafe/248x186/smart/filters:format(auto)/a%20b/c.jpg",
            "https://img.example/unsafe/500x375/smart/filters:format(auto)/a%20b/c.jpg",
        ])
        #expect(try markup.url("https://example.com/x.jpg?a=1", width: 10, height: 10)
            == "https://img.example/unsafe/10x10/smart/filters:format(auto)/https%3A%2F%2Fexample.com%2Fx.jpg%3Fa%3D1")
        // Encoded as encodeURIComponent encodes (focal-img.js writes the same URL): non-ASCII too.
        #expect(try markup.url("caf\u{E9}/(1).jpg", width: 10, height: 10).hasSuffix("/caf%C3%A9/(1).jpg"))
        // A ratio with large terms keeps the width and rounds the height.
        #expect(Self.candidates(try markup.html(source: "a.jpg", alt: "", aspect: (1001, 500))).first?.url.contains("/250x125/") == true)
        #expect(FocalImageMarkup(server: "x", widths: []).widths == FocalImageMarkup.defaultWidths)
    }

    @Test("text is escaped; path tricks are refused before any URL is built")
    func escapingAndRefusals() throws {
        let markup = FocalImageMarkup(server: "https://img.example")
        let html = try markup.html(source: "id:88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5", alt: #"<script>"&'"#, aspect: (1, 1))
        #expect(html.contains(#"alt="&lt;script&gt;&quot;&amp;'""#))
        #expect(!html.contains("<script>"))
        #expect(html.contains("/smart/filters:format(auto)/id:88431cd9"))
        for trick in ["../secret.jpg", "a/../b.jpg", "./a.jpg", "a//b.jpg", "a\\b.jpg", "", "a\nb.jpg", "/a.jpg"] {
            #expect(throws: FocalImageMarkup.InvalidSource.self, "\(trick.debugDescription)") {
                try markup.html(source: trick, alt: "", aspect: (1, 1))
            }
        }
    }
}
