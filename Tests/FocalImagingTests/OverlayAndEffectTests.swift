import FocalCore
import FocalImaging
import Testing

/// The frame changes at the imaging level, on synthetic images whose every pixel is known: where
/// a watermark lands and how transparent it is, what `fill` puts around a frame, how a
/// nine-patch frames it, and effects that must change only what they say.
@Suite struct OverlayAndEffectTests {
    /// A `size` image of one opaque colour.
    static func solid(_ size: PixelSize, _ rgb: (UInt8, UInt8, UInt8), alpha: UInt8 = 255) throws -> RenderedImage {
        var rgba = [UInt8](repeating: 0, count: size.width * size.height * 4)
        for i in 0..<(size.width * size.height) {
            rgba[4 * i] = rgb.0
            rgba[4 * i + 1] = rgb.1
            rgba[4 * i + 2] = rgb.2
            rgba[4 * i + 3] = alpha
        }
        return try RenderedImage(rgba: rgba, size: size)
    }

    /// The RGBA of pixel (x, y) of `image`.
    static func pixel(_ image: RenderedImage, _ x: Int, _ y: Int) throws -> [UInt8] {
        let pixels = try image.rgbaPixels()
        let i = 4 * (y * image.size.width + x)
        return Array(pixels[i..<(i + 4)])
    }

    @Test("a watermark at -10,-10 lands 10 px from the bottom-right corner, and only there")
    func watermarkCorner() throws {
        let base = try Self.solid(PixelSize(width: 100, height: 80), (0, 0, 255))
        let mark = try Self.solid(PixelSize(width: 20, height: 10), (255, 0, 0))
        let out = try Watermark(text: "logo.png,-10,-10,0").apply(mark, to: base)
        #expect(out.size == base.size)
        // The mark covers x 70..<90, y 60..<70.
        #expect(try Self.pixel(out, 70, 60) == [255, 0, 0, 255])
        #expect(try Self.pixel(out, 89, 69) == [255, 0, 0, 255])
        #expect(try Self.pixel(out, 90, 69) == [0, 0, 255, 255], "right of the mark")
        #expect(try Self.pixel(out, 69, 60) == [0, 0, 255, 255], "left of the mark")
        #expect(try Self.pixel(out, 70, 70) == [0, 0, 255, 255], "below the mark")
    }

    @Test("a watermark 50 % transparent blends half and half; 100 % leaves the image as it was")
    func watermarkAlpha() throws {
        let base = try Self.solid(PixelSize(width: 40, height: 40), (0, 0, 200))
        let mark = try Self.solid(PixelSize(width: 40, height: 40), (200, 0, 0))
        let half = try Watermark(text: "m.png,0,0,50").apply(mark, to: base)
        let p = try Self.pixel(half, 20, 20)
        #expect(abs(Int(p[0]) - 100) <= 2 && abs(Int(p[2]) - 100) <= 2, "\(p)")
        let none = try Watermark(text: "m.png,0,0,100").apply(mark, to: base)
        #expect(try none.rgbaPixels() == base.rgbaPixels())
    }

    @Test("a watermark's ratios scale it to their box, up as well as down (thumbor's), never past the output")
    func watermarkRatios() throws {
        let output = PixelSize(width: 200, height: 100)
        #expect(try Watermark(text: "m.png,0,0,0,50,50").size(of: PixelSize(width: 10, height: 10), on: output) == PixelSize(width: 50, height: 50))
        #expect(try Watermark(text: "m.png,0,0,0,10,none").size(of: PixelSize(width: 100, height: 50), on: output) == PixelSize(width: 20, height: 10))
        #expect(try Watermark(text: "m.png,0,0,0").size(of: PixelSize(width: 7, height: 3), on: output) == PixelSize(width: 7, height: 3))
        // A hostile mark (a sliver) with one ratio: bounded by the output, not grown 2000 times.
        let sliver = try Watermark(text: "m.png,0,0,0,none,100").size(of: PixelSize(width: 100, height: 1), on: PixelSize(width: 2000, height: 2000))
        #expect(sliver == PixelSize(width: 2000, height: 20))
    }

    @Test("fill(ff0000) in a larger box: the frame in the middle, the rest red")
    func fillColour() throws {
        let frame = try Self.solid(PixelSize(width: 40, height: 20), (0, 255, 0))
        var fill = try Fill(text: "ff0000")
        fill.box = (60, 40)
        #expect(fill.canvas(for: frame.size) == PixelSize(width: 60, height: 40))
        let out = try fill.apply(to: frame)
        #expect(out.size == PixelSize(width: 60, height: 40))
        #expect(try Self.pixel(out, 0, 0).prefix(3) == [255, 0, 0])
        #expect(try Self.pixel(out, 30, 20).prefix(3) == [0, 255, 0], "the frame in the middle")
        #expect(try Self.pixel(out, 59, 39).prefix(3) == [255, 0, 0])
    }

    @Test("a nine-patch frame grows the output by its content margins and keeps the output inside")
    func ninePatch() throws {
        // 12×12: a 1 px guide border; stretch marks in the middle of the top and left guides,
        // content marks from 3 to 8 on the bottom and right guides; the picture grey.
        let side = 12
        var rgba = [UInt8](repeating: 0, count: side * side * 4)
        func set(_ x: Int, _ y: Int, _ v: [UInt8]) { for c in 0..<4 { rgba[4 * (y * side + x) + c] = v[c] } }
        for y in 1..<(side - 1) { for x in 1..<(side - 1) { set(x, y, [128, 128, 128, 255]) } }
        for i in 5...6 { set(i, 0, [0, 0, 0, 255]); set(0, i, [0, 0, 0, 255]) }
        for i in 3...8 { set(i, side - 1, [0, 0, 0, 255]); set(side - 1, i, [0, 0, 0, 255]) }
        let patch = try NinePatch.Patch(try RenderedImage(rgba: rgba, size: PixelSize(width: side, height: side)))
        let output = try Self.solid(PixelSize(width: 50, height: 30), (0, 0, 255))
        let framed = patch.framedSize(output.size)
        #expect(framed.width > output.size.width && framed.height > output.size.height)
        let out = try NinePatch.apply(patch, to: output)
        #expect(out.size == framed)
        #expect(try Self.pixel(out, 0, 0).prefix(3) == [128, 128, 128], "the patch's picture at the corner")
    }

    @Test("grayscale makes every pixel grey and keeps alpha; brightness(0) changes nothing")
    func effects() throws {
        let image = try Self.solid(PixelSize(width: 16, height: 16), (200, 40, 10), alpha: 128)
        var grey: [AppliedEffect] = []
        grey.set(try Grayscale(arguments: ""))
        let out = try grey.apply(to: image)
        let p = try Self.pixel(out, 8, 8)
        #expect(p[0] == p[1] && p[1] == p[2], "\(p)")
        #expect(p[3] == 128, "alpha kept")
        var none: [AppliedEffect] = []
        none.set(try Brightness(arguments: "0"))
        #expect(try none.apply(to: image).rgbaPixels() == image.rgbaPixels())
    }
}
