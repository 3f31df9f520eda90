import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

/// `Canvas`: the debug overlays change exactly the pixels they should. Fonts are installed by
/// `scripts/setup.sh deps` (fonts-dejavu-core), so labels must draw.
@Suite("Canvas") struct CanvasTests {
    static let ground = RGB(100, 150, 200)
    static let ink = RGB(255, 0, 0)

    static func blank(_ width: Int, _ height: Int) -> PixelBuffer {
        .make(width: width, height: height) { _, _ in ground }
    }

    /// Checks every pixel against a picture drawn in text: "#" is ink, "." is untouched.
    static func expect(_ pixels: PixelBuffer, matches rows: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rows.count == pixels.height && rows.allSatisfy { $0.count == pixels.width }, sourceLocation: sourceLocation)
        var drawn: [String] = []
        for y in 0..<pixels.height {
            var line = ""
            for x in 0..<pixels.width {
                let p = pixels.pixel(x, y)
                line += p == ink ? "#" : p == ground ? "." : "?"
            }
            drawn.append(line)
        }
        #expect(drawn == rows, "\n\(drawn.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }

    @Test func startsAsACopy() {
        let pixels = PixelBuffer.make(width: 5, height: 4) { x, y in RGB(UInt8(x), UInt8(y), 9) }
        let canvas = Canvas(pixels)
        #expect(canvas.width == 5 && canvas.height == 4)
        #expect(canvas.pixels.bytes == pixels.bytes)
    }

    @Test func strokeDrawsTheOutlineInsideTheRect() {
        var canvas = Canvas(Self.blank(10, 7))
        canvas.stroke(Box(x: 2, y: 1, width: 5, height: 4), color: Self.ink, thickness: 1)
        Self.expect(canvas.pixels, matches: [
            "..........",
            "..#####...",
            "..#...#...",
            "..#...#...",
            "..#####...",
            "..........",
            "..........",
        ])
    }

    @Test func thickStrokeGrowsInwards() {
        var canvas = Canvas(Self.blank(10, 8))
        canvas.stroke(Box(x: 1, y: 1, width: 7, height: 6), color: Self.ink, thickness: 2)
        Self.expect(canvas.pixels, matches: [
            "..........",
            ".#######..",
            ".#######..",
            ".##...##..",
            ".##...##..",
            ".#######..",
            ".#######..",
            "..........",
        ])
    }

    /// Boxes from a caller's detector may lie anywhere: beyond what an `Int` holds, or not a
    /// number at all. They draw what falls on the canvas, at once, and never trap.
    @Test func boxesBeyondAnyIntDrawWhatFallsOnTheCanvas() {
        var canvas = Canvas(Self.blank(6, 4))
        // From far left to far right of the canvas (past Int's range at its left): its top and bottom rows.
        canvas.stroke(Box(x: -1e20, y: 1, width: 1e20 + 32768, height: 2), color: Self.ink, thickness: 1)
        canvas.stroke(Box(x: 1e300, y: 0, width: 1e300, height: 1e300), color: Self.ink, thickness: 1)
        canvas.stroke(Box(x: .nan, y: .nan, width: .nan, height: .nan), color: Self.ink, thickness: 3)
        Self.expect(canvas.pixels, matches: [
            "......",
            "######",
            "######",
            "......",
        ])
        var shaded = Canvas(Self.blank(3, 2))
        shaded.shadeOutside(Box(x: -1e300, y: -1e300, width: .infinity, height: .infinity))
        #expect(shaded.pixels.bytes == Self.blank(3, 2).bytes)
    }

    /// Dashes of 2 pixels on, 2 off, counted from the image's origin.
    @Test func dashedStroke() {
        var canvas = Canvas(Self.blank(8, 6))
        canvas.stroke(Box(x: 0, y: 0, width: 8, height: 6), color: Self.ink, thickness: 1, dash: 2)
        Self.expect(canvas.pixels, matches: [
            "##..##.#",
            "#......#",
            "........",
            "........",
            "#......#",
            "##..##.#",
        ])
    }

    /// Fractional boxes round to whole pixels; parts outside the image are clipped, not a crash.
    @Test func strokeRoundsAndClips() {
        var canvas = Canvas(Self.blank(6, 5))
        canvas.stroke(Box(x: -2.2, y: -1.6, width: 5.0, height: 4.0), color: Self.ink, thickness: 1)
        // x: -2 ... round(2.8) - 1 = 2; y: -2 ... round(2.4) - 1 = 1.
        Self.expect(canvas.pixels, matches: [
            "..#...",
            "###...",
            "......",
            "......",
            "......",
        ])
        var outside = Canvas(Self.blank(6, 5))
        outside.stroke(Box(x: 10, y: 10, width: 4, height: 4), color: Self.ink)
        outside.stroke(Box(x: 1, y: 1, width: 0, height: 3), color: Self.ink)
        Self.expect(outside.pixels, matches: Array(repeating: "......", count: 5))
    }

    @Test func shadeOutsideDarkensEverythingElse() {
        var canvas = Canvas(Self.blank(7, 5))
        canvas.shadeOutside(Box(x: 2, y: 1, width: 3, height: 2), factor: 0.5)
        let shaded = RGB(50, 75, 100)
        for y in 0..<5 {
            for x in 0..<7 {
                let inside = (2..<5).contains(x) && (1..<3).contains(y)
                #expect(canvas.pixels.pixel(x, y) == (inside ? Self.ground : shaded), "pixel \(x),\(y)")
            }
        }
    }

    @Test func shadeOutsideDefaultIsAboutAThird() {
        var canvas = Canvas(Self.blank(4, 4))
        canvas.shadeOutside(Box(x: 0, y: 0, width: 2, height: 4))
        #expect(canvas.pixels.pixel(0, 0) == Self.ground)
        let p = canvas.pixels.pixel(3, 3)
        // 0.35 of (100, 150, 200), within one step of rounding.
        #expect(abs(Int(p.r) - 35) <= 1 && abs(Int(p.g) - 52) <= 1 && abs(Int(p.b) - 70) <= 1, "\(p)")
    }

    @Test func shadeOutsideTheWholeImageChangesNothing() {
        var canvas = Canvas(Self.blank(5, 3))
        canvas.shadeOutside(Box(x: -1, y: -1, width: 10, height: 10))
        #expect(canvas.pixels.bytes == Self.blank(5, 3).bytes)
    }

    /// A label draws in its band at the top left of (x, y), and nowhere else.
    @Test func labelStaysInItsBand() {
        var canvas = Canvas(Self.blank(120, 40))
        canvas.label("Face 0.93", x: 30, y: 12, color: RGB(255, 255, 255), size: 14)
        let pixels = canvas.pixels
        var changed: [(Int, Int)] = []
        for y in 0..<40 { for x in 0..<120 where pixels.pixel(x, y) != Self.ground { changed.append((x, y)) } }
        #expect(!changed.isEmpty, "the label drew nothing: are fonts installed (scripts/setup.sh deps)?")
        #expect(changed.allSatisfy { $0.0 >= 30 && $0.1 >= 12 }, "nothing above or left of the label's corner")
        // The band darkens the ground to 0.3 and the text is lighter than the band.
        #expect(pixels.pixel(30, 12) == RGB(30, 45, 60))
        #expect(changed.contains { pixels.pixel($0.0, $0.1).r > 100 })
    }

    @Test func blankCanvasHasTheColour() {
        let canvas = Canvas(width: 4, height: 3, color: Self.ink)
        Self.expect(canvas.pixels, matches: ["####", "####", "####"])
    }

    /// `draw` copies a picture at (x, y), clipped to the canvas.
    @Test func drawCopiesAndClips() {
        var canvas = Canvas(Self.blank(6, 4))
        canvas.draw(.make(width: 3, height: 2) { _, _ in Self.ink }, x: 1, y: 1)
        canvas.draw(.make(width: 3, height: 3) { _, _ in Self.ink }, x: 4, y: -2)
        Self.expect(canvas.pixels, matches: [
            "....##",
            ".###..",
            ".###..",
            "......",
        ])
    }

    /// Labels are plain text: `vips_text` reads Pango markup, so "&" and "<" must be escaped
    /// or the label is silently left out.
    @Test func labelWithMarkupCharactersIsDrawn() {
        var plain = Canvas(Self.blank(160, 30))
        plain.label("cat and dog", x: 2, y: 2, color: RGB(255, 255, 255), size: 14)
        #expect(plain.pixels.bytes != Self.blank(160, 30).bytes, "no text drawn: are fonts installed (scripts/setup.sh deps)?")
        var marked = Canvas(Self.blank(160, 30))
        marked.label("cat & dog <3>", x: 2, y: 2, color: RGB(255, 255, 255), size: 14)
        let drawn = marked.pixels.bytes != Self.blank(160, 30).bytes
        #expect(drawn, "the label was left out")
    }
}
