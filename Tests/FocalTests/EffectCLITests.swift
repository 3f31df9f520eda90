import Focal
import FocalImaging
import FocalTestSupport
import Foundation
import Testing

/// thumbor's filters on the command line: effects in the table's order on a still, every frame of
/// an animation, the sizing and encoding rows.
@Suite struct EffectCLITests {
    static func pixels(_ path: String) throws -> PixelBuffer {
        let image = try SourceImage.open(path: path)
        return try image.pixels(width: image.size.width, height: image.size.height)
    }

    @Test func effectsOnAStillAndOnEveryFrameOfAnAnimation() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = Checkout.fixture("astronaut.png")
        let plain = try await Run(["crop", photo, "--size", "120x90", "--detect", "off", "-o", scratch.file("plain.png")])
        #expect(plain.status == 0, "\(plain.stderr)")
        let gray = try await Run(["crop", photo, "--size", "120x90", "--detect", "off", "--grayscale", "on", "--rotate", "-90", "-o", scratch.file("gray.png")])
        #expect(gray.status == 0, "\(gray.stderr)")
        let (before, after) = (try Self.pixels(scratch.file("plain.png")), try Self.pixels(scratch.file("gray.png")))
        #expect(after.size == PixelSize(width: 90, height: 120), "turned a quarter clockwise")
        let bytes = after.bytes
        let grey = stride(from: 0, to: bytes.count, by: 3).allSatisfy { (i: Int) -> Bool in bytes[i] == bytes[i + 1] && bytes[i + 1] == bytes[i + 2] }
        #expect(grey, "every pixel grey")
        // rotate(-90) is clockwise: the plain output's bottom-left pixel is the turned one's top-left.
        let topRight = 3 * (89 * 120)
        let r = Int(before.bytes[topRight]), g = Int(before.bytes[topRight + 1]), b = Int(before.bytes[topRight + 2])
        #expect(Int(after.bytes[0]) == (r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16)

        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 400, height: 240), spriteWidth: 200, frames: 8, from: (0, 10), to: (200, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        let run = try await Run(["crop", scratch.file("pan.gif"), "--size", "100x100", "--blur", "3", "--round-corner", "20,255,0,0", "-o", scratch.file("out.gif")])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try SourceImage.open(path: scratch.file("out.gif"))
        #expect(try written.animation()?.frames == 8, "every frame kept")
        let first = try written.pixels(width: 100, height: 100)
        #expect(first.bytes[0] > 200 && first.bytes[1] < 60, "the rounded corner is red: \(first.bytes[0..<3])")
        // A watermark on every frame, read from a file as an input is.
        let marked = try await Run(["crop", scratch.file("pan.gif"), "--size", "100x100", "--watermark", Checkout.fixture("chelsea.png") + ",0,0,0,50,50", "-o", scratch.file("marked.gif")])
        #expect(marked.status == 0, "\(marked.stderr)")
        #expect(try SourceImage.open(path: scratch.file("marked.gif")).animation()?.frames == 8)
        // first-frames keeps the first frames.
        let three = try await Run(["crop", scratch.file("pan.gif"), "--size", "100x100", "--first-frames", "3", "-o", scratch.file("three.gif")])
        #expect(three.status == 0, "\(three.stderr)")
        #expect(try SourceImage.open(path: scratch.file("three.gif")).animation()?.frames == 3)
    }

    @Test func sizingAndEncodingRowsOnTheCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let photo = Checkout.fixture("astronaut.png")
        let capped = try await Run(["crop", photo, "--size", "900x300", "--no-upscale", "on", "-o", scratch.file("capped.png")])
        #expect(capped.status == 0, "\(capped.stderr)")
        #expect(try SourceImage.open(path: scratch.file("capped.png")).size == PixelSize(width: 512, height: 300))
        let half = try await Run(["crop", photo, "--size", "300x200", "--proportion", "0.5", "-o", scratch.file("half.png")])
        #expect(try SourceImage.open(path: scratch.file("half.png")).size == PixelSize(width: 150, height: 100), "\(half.stderr)")
        let small = try await Run(["crop", photo, "--size", "300x300", "--max-bytes", "8000", "-o", scratch.file("small.jpg")])
        #expect(small.status == 0, "\(small.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file("small.jpg"))).count
        #expect(bytes <= 8000, "\(bytes) bytes")
        let bad = try await Run(["crop", photo, "--size", "300x300", "--blur", "wide", "-o", scratch.file("x.jpg")])
        #expect(bad.status == 64 && bad.stderr.contains("1 to 150"), "\(bad.stderr)")
    }

    @Test func pageOrientHueAndCurveOnTheCommandLine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 240, height: 160), spriteWidth: 120, frames: 4, from: (0, 10), to: (120, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        // --page: one frame, still; its sprite has moved from the first frame's place.
        let second = try await Run(["crop", scratch.file("pan.gif"), "--aspect", "3:2", "--detect", "off", "--page", "2", "-o", scratch.file("second.png")])
        #expect(second.status == 0, "\(second.stderr)")
        let first = try await Run(["crop", scratch.file("pan.gif"), "--aspect", "3:2", "--detect", "off", "--page", "1", "-o", scratch.file("first.png")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Self.pixels(scratch.file("second.png")).bytes != (try Self.pixels(scratch.file("first.png"))).bytes)
        let missing = try await Run(["crop", scratch.file("pan.gif"), "--aspect", "3:2", "--detect", "off", "--page", "9", "-o", scratch.file("x.png")])
        #expect(missing.status != 0 && missing.stderr.contains("4 pages"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("x.png")))
        // --orient: the photo (512×600) turned before the crop; an animation's every frame.
        let photo = Checkout.fixture("grace_hopper.jpg")
        let turned = try await Run(["crop", photo, "--aspect", "600:512", "--detect", "off", "--orient", "90", "-o", scratch.file("turned.png")])
        #expect(turned.status == 0, "\(turned.stderr)")
        #expect(try SourceImage.open(path: scratch.file("turned.png")).size == PixelSize(width: 600, height: 512))
        // The debug overlay draws the image the crop was planned on: turned too.
        let drawn = try await Run(["crop", photo, "--aspect", "1:1", "--orient", "90", "--debug", "-o", scratch.file("drawn.png")])
        #expect(drawn.status == 0, "\(drawn.stderr)")
        let overlay = try SourceImage.open(path: scratch.file("drawn.debug.png")).size
        #expect(overlay.width > overlay.height, "the turned 600×512 image, not the upright one: \(overlay)")
        let spun = try await Run(["crop", scratch.file("pan.gif"), "--aspect", "2:3", "--detect", "off", "--orient", "270", "-o", scratch.file("spun.gif")])
        #expect(spun.status == 0, "\(spun.stderr)")
        let spunImage = try SourceImage.open(path: scratch.file("spun.gif"))
        let spunFrames = try spunImage.animation()?.frames
        #expect(spunImage.size == PixelSize(width: 160, height: 240) && spunFrames == 4)
        // --frame: a nine-patch read from a file as an input is.
        let patch = scratch.file("frame.9.png")
        try FilterPatch.write(to: patch)
        let framed = try await Run(["crop", photo, "--size", "120x90", "--detect", "off", "--frame", patch, "-o", scratch.file("framed.png")])
        #expect(framed.status == 0, "\(framed.stderr)")
        #expect(try SourceImage.open(path: scratch.file("framed.png")).size == PixelSize(width: 128, height: 98), "4 pixels more on each side")
        // --hue and --curve on a still and an animation.
        for (flag, value) in [("--hue", "150"), ("--curve", "[(0,255),(255,0)],[(0,0),(255,255)],[(0,0),(255,255)],[(0,0),(255,255)]")] {
            let still = try await Run(["crop", photo, "--size", "120x90", "--detect", "off", flag, value, "-o", scratch.file("still.png")])
            #expect(still.status == 0, "\(still.stderr)")
            let plain = try await Run(["crop", photo, "--size", "120x90", "--detect", "off", "-o", scratch.file("plain.png")])
            #expect(plain.status == 0)
            #expect(try Self.pixels(scratch.file("still.png")).bytes != (try Self.pixels(scratch.file("plain.png"))).bytes, "\(flag) \(value)")
            let moving = try await Run(["crop", scratch.file("pan.gif"), "--size", "90x90", "--detect", "off", flag, value, "-o", scratch.file("moving.gif")])
            #expect(moving.status == 0, "\(moving.stderr)")
            #expect(try SourceImage.open(path: scratch.file("moving.gif")).animation()?.frames == 4)
        }
    }
}

/// A small 12×12 nine-patch for the command line: a 2-pixel blue ring; the image goes 4 pixels in.
enum FilterPatch {
    static func write(to path: String) throws {
        let size = 12
        var rgba: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size {
                if x == 0 || y == 0 || x == size - 1 || y == size - 1 {
                    let along = (x == 0 || x == size - 1) ? y : x
                    rgba += (5..<7).contains(along) ? [0, 0, 0, 255] : [0, 0, 0, 0]
                } else {
                    rgba += min(x - 1, y - 1, size - 2 - x, size - 2 - y) < 2 ? [30, 60, 90, 255] : [0, 0, 0, 0]
                }
            }
        }
        try RenderedImage(rgba: rgba, size: PixelSize(width: size, height: size)).encode(.png).write(to: URL(fileURLWithPath: path))
    }
}
