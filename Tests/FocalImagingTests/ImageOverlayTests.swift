import FocalCore
import FocalImaging
import Testing

/// imagor's `image(…)`: its spellings, where it lands, and its blend modes' arithmetic, on
/// synthetic images whose every pixel is known.
@Suite struct ImageOverlayTests {
    @Test("spellings read and print imagor's way", arguments: [
        ("a.png,0,0", "a.png,0,0"), ("a.png,left-20,t", "a.png,left-20,top"), ("a.png,r,b-5,30", "a.png,right,bottom-5,30"),
        ("a.png,center,0.25,0,Multiply", "a.png,center,0.25,0,multiply"), ("'x,y.png',10p,-10p", "'x,y.png',10p,-10p"),
        ("a.png,repeat,repeat,50", "a.png,repeat,repeat,50"), ("/srv/photos/badge.png,0,0", "/srv/photos/badge.png,0,0"),
    ])
    func spellings(text: String, canonical: String) throws {
        #expect(try ImageOverlay(text: text).text == canonical)
    }

    @Test("refusals name the part", arguments: [
        "a.png", "a.png,0", "a.png,wide,0", "a.png,0,0,101", "a.png,0,0,0,mask", "/100x100/a.png,0,0", "/fit-in/f-20xf-20/a.png,0,0",
        "/filters:grayscale()/a.png,0,0", ",0,0",
    ])
    func refusals(text: String) {
        #expect(throws: PlanningError.self) { try ImageOverlay(text: text) }
    }

    static func solid(_ size: PixelSize, _ rgb: [UInt8], alpha: UInt8 = 255) throws -> RenderedImage {
        var rgba = [UInt8](repeating: alpha, count: size.width * size.height * 4)
        for i in 0..<(size.width * size.height) { for c in 0..<3 { rgba[4 * i + c] = rgb[c] } }
        return try RenderedImage(rgba: rgba, size: size)
    }

    @Test("right-10,bottom-5 puts a 20×10 image 10 px from the right and 5 from the bottom")
    func placement() throws {
        let base = try Self.solid(PixelSize(width: 100, height: 50), [0, 0, 200])
        let top = try Self.solid(PixelSize(width: 20, height: 10), [200, 0, 0])
        let out = try ImageOverlay(text: "a.png,right-10,bottom-5").apply(top, to: base).rgbaPixels()
        func at(_ x: Int, _ y: Int) -> [UInt8] { Array(out[(4 * (y * 100 + x))..<(4 * (y * 100 + x) + 3)]) }
        #expect(at(70, 35) == [200, 0, 0] && at(89, 44) == [200, 0, 0])
        #expect(at(90, 44) == [0, 0, 200] && at(69, 35) == [0, 0, 200] && at(70, 45) == [0, 0, 200])
    }

    @Test("blend modes: multiply, screen, difference and add on known colours; 100 % transparent changes nothing")
    func blends() throws {
        let base = try Self.solid(PixelSize(width: 4, height: 4), [200, 100, 50])
        let top = try Self.solid(PixelSize(width: 4, height: 4), [100, 200, 255])
        func first(_ mode: String, alpha: Int = 0) throws -> [UInt8] {
            Array(try ImageOverlay(text: "t.png,0,0,\(alpha),\(mode)").apply(top, to: base).rgbaPixels().prefix(3))
        }
        // multiply: b·s/255; screen: b + s − b·s/255; difference: |b − s|; add: min(255, b + s).
        #expect(try first("multiply") == [78, 78, 50])
        #expect(try first("screen") == [222, 222, 255])
        #expect(try first("difference") == [100, 100, 205])
        #expect(try first("add") == [255, 255, 255])
        #expect(try first("normal", alpha: 100) == [200, 100, 50])
        #expect(try first("normal", alpha: 50) == [150, 150, 153])
    }

    @Test("an output with alpha keeps it, and a clear overlay pixel leaves the output's")
    func alpha() throws {
        let base = try Self.solid(PixelSize(width: 8, height: 8), [10, 20, 30], alpha: 100)
        let clear = try Self.solid(PixelSize(width: 8, height: 8), [255, 255, 255], alpha: 0)
        let out = try ImageOverlay(text: "c.png,0,0").apply(clear, to: base)
        #expect(out.hasAlpha)
        #expect(try out.rgbaPixels() == base.rgbaPixels())
    }
}
