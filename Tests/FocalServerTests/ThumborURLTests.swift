import Focal
@testable import FocalServer
import Testing

/// thumbor's URL grammar, part by part, and what is refused.
@Suite struct ThumborURLTests {
    @Test func everyOptionInOrder() throws {
        let url = try ThumborURL(path: "/SIG=/meta/10x20:300x400/adaptive-full-fit-in/-300x-200/left/bottom/smart/filters:quality(80):focal(1x2:3x4)/photos/a.jpg")
        #expect(url.signature == "SIG=")
        #expect(url.signedPath == "meta/10x20:300x400/adaptive-full-fit-in/-300x-200/left/bottom/smart/filters:quality(80):focal(1x2:3x4)/photos/a.jpg")
        #expect(url.meta)
        #expect(url.manualCrop?.left == 10 && url.manualCrop?.top == 20 && url.manualCrop?.right == 300 && url.manualCrop?.bottom == 400)
        #expect(url.fitIn == .adaptiveFull)
        #expect(url.width == .pixels(300) && url.height == .pixels(200))
        #expect(url.flip == [.horizontal, .vertical])
        #expect(url.horizontalAlignment == .left && url.verticalAlignment == .bottom)
        #expect(url.smart)
        #expect(url.filters == [.init(name: "quality", arguments: "80"), .init(name: "focal", arguments: "1x2:3x4")])
        #expect(url.image == "photos/a.jpg")
    }

    @Test func unsafeAndTheSmallestURL() throws {
        let url = try ThumborURL(path: "/unsafe/a.png")
        #expect(url.signature == nil)
        #expect(url.width == .auto && url.height == .auto && !url.smart && url.filters.isEmpty)
        #expect(url.image == "a.png")
    }

    @Test(arguments: [
        ("300x0", ThumborURL.Side.pixels(300), ThumborURL.Side.auto), ("x200", .auto, .pixels(200)), ("0x0", .auto, .auto),
        ("origx100", .original, .pixels(100)), ("x", .auto, .auto),
    ])
    func sides(_ text: String, _ width: ThumborURL.Side, _ height: ThumborURL.Side) throws {
        let url = try ThumborURL(path: "/unsafe/\(text)/a.png")
        #expect(url.width == width && url.height == height)
        #expect(url.image == "a.png")
    }

    /// An image URL keeps its own slashes, encoded or not; filter arguments may hold slashes.
    @Test func imageURLsAndSlashes() throws {
        let plain = try ThumborURL(path: "/unsafe/300x200/smart/https://example.com/a/b.jpg")
        #expect(plain.image == "https://example.com/a/b.jpg")
        let encoded = try ThumborURL(path: "/unsafe/300x200/https%3A%2F%2Fexample.com%2Fa.jpg")
        #expect(encoded.image == "https%3A%2F%2Fexample.com%2Fa.jpg")
        let filtered = try ThumborURL(path: "/unsafe/filters:focal(1,2):format(webp)/dir/a.jpg")
        #expect(filtered.filters.map(\.name) == ["focal", "format"])
        #expect(filtered.image == "dir/a.jpg")
    }

    @Test(arguments: [
        "/", "/unsafe", "/unsafe/", "//300x200/a.jpg", "/unsafe/300x200/", "/unsafe/trim:sideways/a.jpg",
        "/unsafe/filters:quality(80/a.jpg", "/unsafe/filters:quality80)/a.jpg", "/unsafe/99999999999x1/a.jpg",
        "/unsafe/filters:(80)/a.jpg",
    ])
    func malformedURLsAreRefused(_ path: String) {
        #expect(throws: ServerError.self) { try ThumborURL(path: path) }
    }

    /// A number too long for any use is refused, never converted with a trap.
    @Test func hugeNumbersAreRefused() {
        #expect(throws: ServerError.self) { try ThumborURL(path: "/unsafe/1x1:99999999999999999999x2/a.jpg") }
    }
}
