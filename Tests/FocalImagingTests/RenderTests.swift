import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// `SourceImage.render(crop:to:)`: exact output sizes, and the content of the crop.
    @Suite("SourceImage: render a crop") struct RenderTests {
        struct Case: Sendable, CustomTestStringConvertible {
            var fixture: Fixture
            var crop: PixelRect
            var output: PixelSize
            var testDescription: String { "\(fixture.rawValue) \(crop) -> \(output)" }
        }

        static let cases: [Case] = [
            // coffee.png is 600x400 (no shrink-on-load for PNG)
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 0, width: 600, height: 400), output: PixelSize(width: 600, height: 400)),
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 0, width: 600, height: 400), output: PixelSize(width: 300, height: 200)),
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 0, width: 600, height: 400), output: PixelSize(width: 1200, height: 800)),
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 0, width: 600, height: 400), output: PixelSize(width: 100, height: 100)),
            Case(fixture: .coffee, crop: PixelRect(x: 123, y: 45, width: 301, height: 211), output: PixelSize(width: 97, height: 68)),
            Case(fixture: .coffee, crop: PixelRect(x: 123, y: 45, width: 301, height: 211), output: PixelSize(width: 640, height: 480)),
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 0, width: 1, height: 1), output: PixelSize(width: 17, height: 33)),
            Case(fixture: .coffee, crop: PixelRect(x: 599, y: 399, width: 1, height: 1), output: PixelSize(width: 5, height: 5)),
            Case(fixture: .coffee, crop: PixelRect(x: 0, y: 399, width: 600, height: 1), output: PixelSize(width: 60, height: 10)),
            Case(fixture: .coffee, crop: PixelRect(x: 333, y: 0, width: 267, height: 400), output: PixelSize(width: 1, height: 1)),
            Case(fixture: .coffee, crop: PixelRect(x: 450, y: 250, width: 150, height: 150), output: PixelSize(width: 400, height: 400)),
            // grace_hopper.jpg is 512x600 (JPEG: shrink-on-load when shrinking by 2 or more)
            Case(fixture: .graceHopper, crop: PixelRect(x: 0, y: 0, width: 512, height: 600), output: PixelSize(width: 51, height: 60)),
            Case(fixture: .graceHopper, crop: PixelRect(x: 256, y: 300, width: 256, height: 300), output: PixelSize(width: 64, height: 75)),
            Case(fixture: .graceHopper, crop: PixelRect(x: 10, y: 20, width: 100, height: 400), output: PixelSize(width: 300, height: 900)),
            Case(fixture: .graceHopper, crop: PixelRect(x: 100, y: 100, width: 300, height: 300), output: PixelSize(width: 160, height: 90)),
            Case(fixture: .graceHopper, crop: PixelRect(x: 511, y: 0, width: 1, height: 600), output: PixelSize(width: 3, height: 7)),
            // astronaut.png is 512x512
            Case(fixture: .astronaut, crop: PixelRect(x: 64, y: 0, width: 384, height: 512), output: PixelSize(width: 400, height: 500)),
            Case(fixture: .astronaut, crop: PixelRect(x: 1, y: 1, width: 511, height: 511), output: PixelSize(width: 1080, height: 1920)),
        ]

        @Test(arguments: cases)
        func outputHasExactlyTheRequestedSize(_ c: Case) throws {
            // Some cases enlarge a single pixel: this test is about geometry, not the upscale limit.
            let image = try SourceImage.open(path: c.fixture.path, limits: ImageLimits(maxUpscale: 1000))
            let rendered = try image.render(crop: c.crop, to: c.output)
            #expect(rendered.size == c.output)
            let pixels = try rendered.pixels()
            #expect(pixels.size == c.output)
            #expect(pixels.bytes.count == c.output.width * c.output.height * 3)
        }

        /// Rendering the left or the right half of coffee.png gives the colour of that half of the
        /// full decode, not of the other one.
        @Test func leftAndRightHalvesShowTheirOwnContent() throws {
            let image = try SourceImage.open(path: Fixture.coffee.path)
            let full = try image.proxy(longSide: 600)
            let leftRect = PixelRect(x: 0, y: 0, width: 300, height: 400)
            let rightRect = PixelRect(x: 300, y: 0, width: 300, height: 400)
            let (leftFull, rightFull) = (full.mean(leftRect), full.mean(rightRect))
            try #require(leftFull.distance(to: rightFull) > 10, "the halves must differ for this test to mean anything")

            let left = try image.render(crop: leftRect, to: PixelSize(width: 150, height: 200)).pixels().mean()
            let right = try image.render(crop: rightRect, to: PixelSize(width: 150, height: 200)).pixels().mean()
            #expect(left.distance(to: leftFull) < 3, "left \(left) vs \(leftFull)")
            #expect(right.distance(to: rightFull) < 3, "right \(right) vs \(rightFull)")
            #expect(left.distance(to: rightFull) > 3 * left.distance(to: leftFull))
            #expect(right.distance(to: leftFull) > 3 * right.distance(to: rightFull))
            // Which way they differ: the right half of this photo is the brighter one.
            #expect((right.brightness - left.brightness) * (rightFull.brightness - leftFull.brightness) > 0)
        }

        /// Every cell of a 3x3 grid, rendered small, has the mean colour of the same cell of the
        /// full decode; on a PNG (no shrink-on-load) and on a JPEG (shrink-on-load).
        @Test(arguments: [Fixture.astronaut, .graceHopper, .chelsea])
        func gridCellsShowTheirOwnContent(fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let full = try image.proxy(longSide: max(image.size.width, image.size.height))
            let (cw, ch) = (image.size.width / 3, image.size.height / 3)
            var cellMeans: [MeanColor] = []
            for row in 0..<3 {
                for col in 0..<3 {
                    let cell = PixelRect(x: col * cw, y: row * ch, width: cw, height: ch)
                    let expected = full.mean(cell)
                    cellMeans.append(expected)
                    let got = try image.render(crop: cell, to: PixelSize(width: 32, height: 40)).pixels().mean()
                    #expect(got.distance(to: expected) < 5, "cell \(row),\(col): \(got) vs \(expected)")
                }
            }
            let spread = cellMeans.map { $0.distance(to: cellMeans[0]) }.max() ?? 0
            #expect(spread > 20, "the cells must differ for this test to mean anything")
        }

        /// Enlarging a small crop keeps its layout: each quadrant of the output matches the same
        /// quadrant of the crop.
        @Test func upscaledCropKeepsItsLayout() throws {
            let image = try SourceImage.open(path: Fixture.astronaut.path)
            let full = try image.proxy(longSide: 512)
            let crop = PixelRect(x: 180, y: 60, width: 60, height: 60)
            let out = try image.render(crop: crop, to: PixelSize(width: 240, height: 240)).pixels()
            for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let inCrop = PixelRect(x: crop.x + qx * 30, y: crop.y + qy * 30, width: 30, height: 30)
                let inOut = PixelRect(x: qx * 120, y: qy * 120, width: 120, height: 120)
                #expect(out.mean(inOut).distance(to: full.mean(inCrop)) < 8, "quadrant \(qx),\(qy)")
            }
            #expect(out.brightnessSpread > 5)
        }

        /// Changing the aspect ratio squeezes the crop; it does not show another region.
        @Test func squeezedCropKeepsTopAndBottom() throws {
            let image = try SourceImage.open(path: Fixture.graceHopper.path)
            let full = try image.proxy(longSide: 600)
            let crop = PixelRect(x: 100, y: 0, width: 300, height: 600)
            let out = try image.render(crop: crop, to: PixelSize(width: 300, height: 150)).pixels()
            #expect(out.mean().distance(to: full.mean(crop)) < 4)
            let topCrop = PixelRect(x: 100, y: 0, width: 300, height: 200)
            let bottomCrop = PixelRect(x: 100, y: 400, width: 300, height: 200)
            let topOut = PixelRect(x: 0, y: 0, width: 300, height: 50)
            let bottomOut = PixelRect(x: 0, y: 100, width: 300, height: 50)
            try #require(full.mean(topCrop).distance(to: full.mean(bottomCrop)) > 10)
            #expect(out.mean(topOut).distance(to: full.mean(topCrop)) < 5)
            #expect(out.mean(bottomOut).distance(to: full.mean(bottomCrop)) < 5)
        }

        /// Two renders of one source, made first and computed later in either order.
        @Test(arguments: [Fixture.coffee, .graceHopper])
        func rendersOfOneSourceAreIndependent(fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let (w, h) = (image.size.width, image.size.height)
            let a = PixelRect(x: 0, y: 0, width: w / 2, height: h / 2)
            let b = PixelRect(x: w / 2, y: h / 2, width: w / 2, height: h / 2)
            let out = PixelSize(width: 50, height: 40)
            let expectedA = try image.render(crop: a, to: out).pixels().bytes
            let expectedB = try image.render(crop: b, to: out).pixels().bytes
            #expect(expectedA != expectedB)
            let ra = try image.render(crop: a, to: out)
            let rb = try image.render(crop: b, to: out)
            #expect(try rb.pixels().bytes == expectedB)
            #expect(try ra.pixels().bytes == expectedA)
        }

        @Test(arguments: [
            PixelRect(x: -1, y: 0, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 601, height: 10),
            PixelRect(x: 595, y: 395, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 0, height: 10),
        ])
        func cropOutsideTheImageIsRefused(crop: PixelRect) throws {
            let image = try SourceImage.open(path: Fixture.coffee.path)
            let error = focalError { try image.render(crop: crop, to: PixelSize(width: 10, height: 10)) }
            #expect(error?.source == Fixture.coffee.path)
        }

        @Test(arguments: [PixelSize(width: 0, height: 10), PixelSize(width: 10, height: -1)])
        func emptyOutputIsRefused(output: PixelSize) throws {
            let image = try SourceImage.open(path: Fixture.coffee.path)
            let error = focalError { try image.render(crop: PixelRect(x: 0, y: 0, width: 10, height: 10), to: output) }
            #expect(error?.source == Fixture.coffee.path)
        }

        /// `encode(crop:to:format:)` is render and encode in one go.
        @Test func cropAndEncodeInOneGo() throws {
            let image = try SourceImage.open(path: Fixture.chelsea.path)
            let crop = PixelRect(x: 100, y: 50, width: 200, height: 200)
            let data = try image.encode(crop: crop, to: PixelSize(width: 64, height: 64), format: .png)
            let reopened = try SourceImage.open(data: data)
            #expect(reopened.size == PixelSize(width: 64, height: 64))
            let direct = try image.render(crop: crop, to: PixelSize(width: 64, height: 64)).pixels()
            #expect(try reopened.proxy(longSide: 64).bytes == direct.bytes, "PNG is lossless")
        }

        /// `resized(to:)` on an image made from pixels.
        @Test func resizedImageHasTheSizeAndColours() throws {
            let halves = PixelBuffer.make(width: 40, height: 20) { x, _ in x < 20 ? RGB(240, 20, 20) : RGB(20, 20, 240) }
            let resized = try RenderedImage(pixels: halves).resized(to: PixelSize(width: 100, height: 7)).pixels()
            #expect(resized.size == PixelSize(width: 100, height: 7))
            let left = resized.mean(PixelRect(x: 0, y: 0, width: 40, height: 7))
            let right = resized.mean(PixelRect(x: 60, y: 0, width: 40, height: 7))
            #expect(left.r > 200 && left.b < 60, "\(left)")
            #expect(right.b > 200 && right.r < 60, "\(right)")
        }
    }
}
