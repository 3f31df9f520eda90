import Focal
@testable import FocalServer
import Testing

/// How a URL's size, fit-in, alignment and filters become Focal's target and options.
@Suite struct ImageRequestTests {
    func request(_ path: String) throws -> ImageRequest { try ImageRequest(ThumborURL(path: "/unsafe/" + path + "/a.jpg")) }

    @Test(arguments: [
        ("400x300", PixelSize(width: 512, height: 600), CropTarget.size(width: 400, height: 300)),
        ("400x0", PixelSize(width: 512, height: 600), .size(width: 400, height: 469)),
        ("0x300", PixelSize(width: 512, height: 600), .size(width: 256, height: 300)),
        ("0x0", PixelSize(width: 512, height: 600), .aspect(width: 64, height: 75)),
        ("origx100", PixelSize(width: 512, height: 600), .size(width: 512, height: 100)),
        // fit-in: the whole image inside the box, never enlarged.
        ("fit-in/200x200", PixelSize(width: 512, height: 600), .size(width: 171, height: 200)),
        ("fit-in/2000x2000", PixelSize(width: 512, height: 600), .aspect(width: 64, height: 75)),
        ("full-fit-in/200x200", PixelSize(width: 512, height: 600), .size(width: 200, height: 234)),
        ("adaptive-fit-in/300x200", PixelSize(width: 512, height: 600), .size(width: 200, height: 234)),
        ("adaptive-fit-in/200x300", PixelSize(width: 600, height: 512), .size(width: 234, height: 200)),
    ])
    func targets(_ path: String, _ source: PixelSize, _ expected: CropTarget) throws {
        #expect(try request(path).rule.target(for: source) == expected)
    }

    @Test func aspectFilter() throws {
        #expect(try request("filters:aspect(16:9)").rule.fixed == .aspect(width: 16, height: 9))
        #expect(try request("800x0/filters:aspect(16:9)").rule.fixed == .size(width: 800, height: 450))
        #expect(try request("0x450/filters:aspect(16:9)").rule.fixed == .size(width: 800, height: 450))
        // One spelling per URL.
        #expect(try request("0x450/filters:aspect(16x9)").canonicalPath.hasPrefix("0x450/filters:aspect(16:9)/"))
        #expect(throws: ServerError.self) { try request("800x450/filters:aspect(16:9)") }
        #expect(throws: ServerError.self) { try request("filters:aspect(0:9)") }
    }

    @Test func smartDetectsAndAlignmentsDoNot() throws {
        #expect(try request("300x200/smart").options.crop.needsDetection)
        let plain = try request("300x200")
        #expect(!plain.options.crop.detect && plain.options.crop.override == nil, "centre crop by default")
        #expect(try request("300x200/right/top").options.crop.override == .relativeFocus(x: 1, y: 0))
        #expect(try request("300x200/bottom").options.crop.override == .relativeFocus(x: 0.5, y: 1))
    }

    @Test func filtersSetOptions() throws {
        let r = try request("300x200/smart/filters:format(webp):quality(70):padding(24px):zoom(0.6):scheme(largest):accuracy(accurate):strip_icc()")
        #expect(r.options.format == .webp && r.formatChosen)
        #expect(r.options.quality == 70)
        #expect(r.options.crop.padding == .pixels(24))
        #expect(r.options.crop.zoom == .subject(0.6))
        #expect(r.options.crop.scheme == .largest)
        #expect(r.options.accuracy == .accurate)
        #expect(try request("300x200/filters:focal(10x20:110x220)").options.crop.override == .region(PixelRect(x: 10, y: 20, width: 100, height: 200)))
        #expect(try request("300x200/filters:focal(15,25)").options.crop.override == .focus(x: 15, y: 25))
        #expect(try request("10x20:110x220/300x200").options.crop.bounds == PixelRect(x: 10, y: 20, width: 100, height: 200))
        #expect(try request("-300x-200").options.flip == [.horizontal, .vertical])
    }

    @Test(arguments: [
        "300x200/filters:bogus()", "300x200/filters:quality(best)", "300x200/filters:quality(-1)",
        "300x200/filters:zoom(2)", "300x200/filters:scheme(biggest)", "300x200/filters:padding(-1)",
    ])
    func badFiltersAreRefused(_ path: String) {
        #expect(throws: ServerError.self) { try request(path) }
    }
}
