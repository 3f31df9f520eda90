import Focal
import FocalImaging
import FocalTestSupport
import Foundation
import Testing

/// imagor's `color:` source in the library and on the command line: a blank image of one colour,
/// cropped, cached by its name, and refused clearly.
@Suite struct BlankImageTests {
    @Test("a blank crops to its colour at the size asked, and a second crop comes from the cache")
    func cropAndCache() async throws {
        let pipeline = makePipeline()
        let blank = try BlankImage("color:f60", size: PixelSize(width: 90, height: 60))
        #expect(blank.description == "color:ff6600 90x60")
        let result = try await pipeline.crop(.blank(blank), to: .size(width: 90, height: 60), options: FocalOptions(format: .png))
        let image = try SourceImage.open(data: result.data, name: "blank")
        #expect(image.size == PixelSize(width: 90, height: 60))
        let pixels = try image.pixels(width: 90, height: 60)
        #expect(Array(pixels.bytes.prefix(3)) == [255, 102, 0])
        let again = try await pipeline.crop(.blank(blank), to: .size(width: 90, height: 60), options: FocalOptions(format: .png))
        #expect(again.origin == .memoryCache)
        #expect(again.data == result.data)
    }

    @Test("names, transparent and refusals", arguments: ["color:red", "COLOR:Orange", "color:transparent", "color:ff000080"])
    func spellings(text: String) throws {
        if text.hasSuffix("80") {
            #expect(throws: PlanningError.self) { try BlankImage(text, size: PixelSize(width: 2, height: 2)) }
        } else {
            let blank = try BlankImage(text, size: PixelSize(width: 2, height: 2))
            #expect(blank.description.hasPrefix("color:"))
            #expect((blank.colour == nil) == (text == "color:transparent"))
        }
    }

    @Test("sizes beyond the output limits are refused before anything is made")
    func limits() {
        #expect(throws: PlanningError.self) { try BlankImage("color:red", size: PixelSize(width: 100_000, height: 10)) }
        #expect(throws: PlanningError.self) { try BlankImage("color:red", size: PixelSize(width: 0, height: 10)) }
        #expect(throws: PlanningError.self) { try BlankImage("red", size: PixelSize(width: 10, height: 10)) }
    }

    @Test("focal crop color:red --size 64x32 writes a red PNG; --aspect and a bad colour exit 1 with a JSON line")
    func cli() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let out = scratch.path + "/red.png"
        let run = try await Run(["crop", "color:red", "--size", "64x32", "-o", out, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try SourceImage.open(path: out)
        #expect(image.size == PixelSize(width: 64, height: 32))
        #expect(Array(try image.pixels(width: 64, height: 32).bytes.prefix(3)) == [255, 0, 0])
        for bad in [["crop", "color:red", "--aspect", "16:9", "-o", scratch.path + "/a.png", "--json"],
                    ["crop", "color:glitter", "--size", "10x10", "-o", scratch.path + "/b.png", "--json"]] {
            let failed = try await Run(bad)
            #expect(failed.status == 1)
            #expect(failed.objects.first?["code"] as? String == "request.invalid", "\(failed.stdout)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/a.png"))
    }
}
