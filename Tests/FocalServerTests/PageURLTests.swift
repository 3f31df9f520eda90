import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /v1/page-urls` and public plans: on `--key --public-photos` a visitor without the token
/// gets the page's own URLs signed (frames and previews of photos under the root) and nothing else.
@Suite struct PageURLTests {
    static func publicPhotos(_ configuration: inout ServerConfiguration) {
        configuration.allowUnsafe = false
        configuration.publicPhotos = true
        configuration.token = nil
    }

    static func body(_ paths: [String]) -> ByteBuffer {
        ByteBuffer(data: (try? JSONSerialization.data(withJSONObject: ["paths": paths])) ?? Data())
    }

    @Test("the page's frames and previews of root photos are signed for anyone, and the URLs serve")
    func pagePathsAreSignedAndServe() async throws {
        let paths = [
            "384x216/smart/filters:format(auto)/chelsea.png", "384x216/chelsea.png", "/256x256/smart/astronaut.png",
            "fit-in/800x800/filters:format(auto)/chelsea.png", "2048x64/smart/chelsea.png", "205x256/smart/astronaut.png",
        ]
        try await withServer(Self.publicPhotos) { client in
            var urls: [String] = []
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: Self.body(paths)) {
                response in
                #expect(response.status == .ok, "\(String(decoding: response.data, as: UTF8.self))")
                urls = response.json?["urls"] as? [String] ?? []
            }
            try #require(urls.count == paths.count)
            for (path, url) in zip(paths, urls) {
                let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
                #expect(url == signed(trimmed), "the same signature thumbor's clients compute")
            }
            try await client.execute(uri: urls[0], method: .get, headers: [.accept: "image/webp"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/webp")
                #expect(response.imageSize == PixelSize(width: 384, height: 216))
            }
            try await client.execute(uri: "/unsafe/384x216/chelsea.png", method: .get) { #expect($0.status == .forbidden) }
        }
    }

    @Test(
        "anything else is refused with a 400 naming why",
        arguments: [
            "256x256/smart/filters:quality(5)/chelsea.png", "256x256/smart/filters:format(png)/chelsea.png",
            "meta/256x256/smart/chelsea.png", "10x10:200x200/256x256/chelsea.png", "-256x256/chelsea.png",
            "256x256/left/top/chelsea.png", "2049x100/chelsea.png", "0x256/chelsea.png", "256x/chelsea.png",
            "orig/chelsea.png", "fit-in/800x600/chelsea.png", "fit-in/800x800/smart/chelsea.png", "adaptive-fit-in/800x800/chelsea.png",
            "256x256/https%3A%2F%2Fexample.com%2Fa.jpg", "256x256/https://example.com/a.jpg",
            "256x256/id:88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5",
            // Off the ladder: any size up to 2048 was signed once (4.2 million per photo).
            "352x198/chelsea.png", "300x300/smart/chelsea.png", "2048x1/chelsea.png", "2048x1000/chelsea.png", "fit-in/900x900/chelsea.png",
            // Another spelling of a page URL.
            "256x256/smart/filters:format(auto)/chels%65a.png", "256x256/smart/filters:format(auto)/./chelsea.png",
        ])
    func otherPathsAreRefused(path: String) async throws {
        try await withServer(Self.publicPhotos) { client in
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: Self.body([path])) {
                response in
                #expect(response.status == .badRequest, "\(path): \(response.status)")
                #expect(["request.invalid", "request.not_canonical"].contains(response.json?["code"] as? String ?? ""), "\(path)")
            }
        }
    }

    /// The cache-flushing spellings an audit had signed: each refused, so that one page URL has
    /// one signature.
    @Test(arguments: [
        "0384x0216/smart/filters:format(auto)/chelsea.png", "384x216/smart/filters:format(auto):format(auto)/chelsea.png",
        "384x216/smart/filters:format(auto)/%63helsea.png", "384x216/smart/filters:format(auto)/chelsea%2Epng",
    ])
    func otherSpellingsAreNotSigned(path: String) async throws {
        try await withServer(Self.publicPhotos) { client in
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: Self.body([path])) {
                response in
                #expect(response.status == .badRequest, "\(path)")
                #expect(response.json?["code"] as? String == "request.not_canonical", "\(path): \(String(decoding: response.data, as: UTF8.self))")
            }
        }
    }

    @Test("a photo that is not under the root is a 404, and more paths than --max-sign-paths a 400")
    func missingPhotosAndTooManyPaths() async throws {
        try await withServer(Self.publicPhotos) { client in
            try await client.execute(
                uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: Self.body(["256x256/nope.png"])
            ) { #expect($0.status == .notFound) }
            let many = Array(repeating: "300x300/chelsea.png", count: 1000)
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: Self.body(many)) {
                #expect($0.status == .badRequest)
            }
        }
    }

    @Test("where photos are not public, or URLs need no signing, nothing is signed here")
    func onlyWherePhotosArePublic() async throws {
        let body = Self.body(["300x300/chelsea.png"])
        try await withServer({ $0.allowUnsafe = false }) { client in
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: body) { response in
                #expect(response.status == .unauthorized)
                #expect(String(decoding: response.data, as: UTF8.self).contains("--public-photos"))
            }
            try await client.execute(uri: "/v1/config", method: .get) { #expect($0.json?["pageURLs"] as? Bool == false) }
        }
        try await withServer { client in
            try await client.execute(uri: "/v1/page-urls", method: .post, headers: [.contentType: "application/json"], body: body) {
                #expect($0.status == .unauthorized)
            }
        }
        try await withServer(Self.publicPhotos) { client in
            try await client.execute(uri: "/v1/config", method: .get) { #expect($0.json?["pageURLs"] as? Bool == true) }
        }
    }

    @Sendable static func plan(_ source: [String: String]) -> ByteBuffer {
        ByteBuffer(data: (try? JSONSerialization.data(withJSONObject: ["source": source, "frames": [["aspect": "1:1"]]])) ?? Data())
    }

    @Test("public photos are planned for anyone; a URL or an id still needs the token")
    func publicPlans() async throws {
        try await withServer(Self.publicPhotos) { client in
            try await client.execute(uri: "/v1/plan", method: .post, headers: [.contentType: "application/json"], body: Self.plan(["path": "chelsea.png"])) {
                response in
                #expect(response.status == .ok)
                #expect((response.json?["frames"] as? [[String: Any]])?.first?["strategy"] as? String == "pets")
            }
            let id = "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"
            try await client.execute(uri: "/v1/plan", method: .post, headers: [.contentType: "application/json"], body: Self.plan(["id": id])) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(
                uri: "/v1/plan", method: .post, headers: [.contentType: "application/json"], body: Self.plan(["url": "https://example.com/a.jpg"])
            ) { #expect($0.status == .unauthorized) }
        }
        try await withServer({ $0.allowUnsafe = false }) { client in
            try await client.execute(uri: "/v1/plan", method: .post, headers: [.contentType: "application/json"], body: Self.plan(["path": "chelsea.png"])) {
                #expect($0.status == .unauthorized, "photos are not public here")
            }
        }
    }
}
