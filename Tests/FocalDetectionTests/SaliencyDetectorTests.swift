import Focal
import FocalTestSupport
import Testing

@Suite struct SaliencyDetectorTests {
    @Test("the salient region of the coffee photo holds the cup, not the empty table edge")
    func coffee() async throws {
        let req = try request(for: "coffee.png")
        let found = try await SaliencyDetector().detect(req)
        let region = try #require(found.first)
        #expect(found.count == 1 && region.kind == .saliency)
        // The cup and saucer fill the middle of the 600x400 photo.
        #expect(region.box.contains(x: 300, y: 200), "\(region.box)")
        #expect(region.box.area < 0.8 * Double(req.imageSize.area))
        #expect(region.confidence > 0 && region.confidence <= 1)
    }

    @Test("a flat picture has no salient region")
    func flat() throws {
        let grey = try #require(PixelBuffer(width: 64, height: 48, bytes: [UInt8](repeating: 128, count: 64 * 48 * 3)))
        #expect(try SaliencyDetector().region(in: grey) == nil)
    }

    @Test("a bright square on black is found where it is")
    func square() throws {
        var bytes = [UInt8](repeating: 0, count: 256 * 128 * 3)
        for y in 80..<110 { for x in 180..<210 { for c in 0..<3 { bytes[(y * 256 + x) * 3 + c] = 255 } } }
        let image = try #require(PixelBuffer(width: 256, height: 128, bytes: bytes))
        let region = try #require(try SaliencyDetector().region(in: image))
        #expect(region.box.contains(x: 195, y: 95), "\(region.box)")
        #expect(!region.box.contains(x: 40, y: 30))
    }
}
