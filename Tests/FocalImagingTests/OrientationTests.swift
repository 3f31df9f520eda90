import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// EXIF orientation: JPEGs written by the encoder under test, with an APP1 Exif segment
    /// holding tag 0x0112 inserted after SOI by hand.
    @Suite("SourceImage: EXIF orientation") struct OrientationTests {
        enum Corner: CaseIterable { case topLeft, topRight, bottomLeft, bottomRight }

        /// A landscape image (stored pixels) with one colour per quadrant.
        static let stored = PixelBuffer.make(width: 80, height: 40) { x, y in
            switch (x < 40, y < 20) {
            case (true, true): RGB(255, 0, 0)  // top left: red
            case (false, true): RGB(0, 255, 0)  // top right: green
            case (true, false): RGB(0, 0, 255)  // bottom left: blue
            case (false, false): RGB(255, 255, 255)  // bottom right: white
            }
        }

        static func colour(of corner: Corner) -> RGB {
            switch corner {
            case .topLeft: RGB(255, 0, 0)
            case .topRight: RGB(0, 255, 0)
            case .bottomLeft: RGB(0, 0, 255)
            case .bottomRight: RGB(255, 255, 255)
            }
        }

        /// Which stored corner each displayed corner shows, [top left, top right, bottom left,
        /// bottom right], from the EXIF 2.3 definitions ("0th row" / "0th column" sides):
        /// 1 top/left; 2 top/right; 3 bottom/right; 4 bottom/left; 5 left/top; 6 right/top;
        /// 7 right/bottom; 8 left/bottom. E.g. 6: stored row 0 is the displayed right column and
        /// stored column 0 the displayed top row, so the stored bottom-left shows at the top left.
        static let displayed: [Int: [Corner]] = [
            1: [.topLeft, .topRight, .bottomLeft, .bottomRight],
            2: [.topRight, .topLeft, .bottomRight, .bottomLeft],
            3: [.bottomRight, .bottomLeft, .topRight, .topLeft],
            4: [.bottomLeft, .bottomRight, .topLeft, .topRight],
            5: [.topLeft, .bottomLeft, .topRight, .bottomRight],
            6: [.bottomLeft, .topLeft, .bottomRight, .topRight],
            7: [.bottomRight, .topRight, .bottomLeft, .topLeft],
            8: [.topRight, .bottomRight, .topLeft, .bottomLeft],
        ]

        static func jpeg(orientation: Int, bigEndian: Bool = true) throws -> Data {
            let plain = try RenderedImage(pixels: stored).encode(.jpeg, quality: 95)
            return ImageBytes.inserting(ImageBytes.exifOrientationSegment(orientation, bigEndian: bigEndian), intoJPEG: plain)
        }

        /// The stored colour nearest to `colour`, so JPEG's small errors do not matter.
        static func nearestCorner(_ seen: MeanColor) -> Corner {
            func distance(_ corner: Corner) -> Double {
                let c = colour(of: corner)
                return seen.distance(to: MeanColor(r: Double(c.r), g: Double(c.g), b: Double(c.b)))
            }
            return Corner.allCases.min { distance($0) < distance($1) }!
        }

        static func corners(of pixels: PixelBuffer) -> [Corner] {
            let (w, h) = (pixels.width, pixels.height)
            let (qw, qh) = (w / 2, h / 2)
            // The middle of each quadrant, away from the borders that JPEG blurs.
            return [(0, 0), (qw, 0), (0, qh), (qw, qh)].map { x, y in
                nearestCorner(pixels.mean(PixelRect(x: x + qw / 4, y: y + qh / 4, width: qw / 2, height: qh / 2)))
            }
        }

        @Test func noExifMeansOrientationOne() throws {
            let plain = try RenderedImage(pixels: Self.stored).encode(.jpeg)
            let image = try SourceImage.open(data: plain)
            #expect(image.orientation == 1)
            #expect(image.size == PixelSize(width: 80, height: 40))
            #expect(Self.corners(of: try image.proxy(longSide: 80)) == Self.displayed[1])
        }

        @Test(arguments: 1...8, [true, false])
        func orientationIsReportedAndApplied(orientation: Int, bigEndian: Bool) throws {
            let image = try SourceImage.open(data: try Self.jpeg(orientation: orientation, bigEndian: bigEndian))
            #expect(image.orientation == orientation)
            let expectedSize = orientation >= 5 ? PixelSize(width: 40, height: 80) : PixelSize(width: 80, height: 40)
            #expect(image.size == expectedSize)
            let proxy = try image.proxy(longSide: 80)
            #expect(proxy.size == expectedSize)
            #expect(Self.corners(of: proxy) == Self.displayed[orientation])
            // Shrink-on-load takes the same path: a small proxy is oriented the same way (a
            // quarter: the DCT's own shrink, then the EXIF turn, `load_jpeg_shrunk`).
            let small = try image.proxy(longSide: 20)
            #expect(small.size == PixelSize(width: expectedSize.width / 4, height: expectedSize.height / 4))
            #expect(Self.corners(of: small) == Self.displayed[orientation])
        }

        /// The brief's example: a left-bright, right-dark landscape tagged 6 is shown turned a
        /// quarter clockwise, so its left side is on top: top bright, bottom dark. Tagged 8 it
        /// turns the other way (bright at the bottom); tagged 3 it turns over (bright on the right).
        @Test(arguments: [(6, "top"), (8, "bottom"), (3, "right"), (1, "left")])
        func brightSideMoves(orientation: Int, brightSide: String) throws {
            let stripes = PixelBuffer.make(width: 80, height: 40) { x, _ in x < 40 ? RGB(250, 250, 250) : RGB(10, 10, 10) }
            let plain = try RenderedImage(pixels: stripes).encode(.jpeg)
            let image = try SourceImage.open(data: ImageBytes.inserting(ImageBytes.exifOrientationSegment(orientation), intoJPEG: plain))
            #expect(image.orientation == orientation)
            let p = try image.proxy(longSide: 80)
            let (w, h) = (p.width, p.height)
            let halves: [String: PixelRect] = [
                "top": PixelRect(x: 0, y: 0, width: w, height: h / 2 - 2),
                "bottom": PixelRect(x: 0, y: h / 2 + 2, width: w, height: h / 2 - 2),
                "left": PixelRect(x: 0, y: 0, width: w / 2 - 2, height: h),
                "right": PixelRect(x: w / 2 + 2, y: 0, width: w / 2 - 2, height: h),
            ]
            let opposite = ["top": "bottom", "bottom": "top", "left": "right", "right": "left"][brightSide]!
            #expect(p.mean(halves[brightSide]!).brightness > 230)
            #expect(p.mean(halves[opposite]!).brightness < 30)
        }

        /// Crops are in oriented pixels: the displayed top-left quadrant of an image tagged 6 is
        /// the stored bottom-left one.
        @Test(arguments: [6, 8, 3, 5])
        func renderCropsOrientedPixels(orientation: Int) throws {
            let image = try SourceImage.open(data: try Self.jpeg(orientation: orientation))
            let (w, h) = (image.size.width, image.size.height)
            let quadrants = [
                PixelRect(x: 0, y: 0, width: w / 2, height: h / 2), PixelRect(x: w / 2, y: 0, width: w / 2, height: h / 2),
                PixelRect(x: 0, y: h / 2, width: w / 2, height: h / 2), PixelRect(x: w / 2, y: h / 2, width: w / 2, height: h / 2),
            ]
            for (i, quadrant) in quadrants.enumerated() {
                // The middle half of the quadrant, to stay clear of JPEG's blurred borders.
                let inner = PixelRect(x: quadrant.x + quadrant.width / 4, y: quadrant.y + quadrant.height / 4,
                                      width: quadrant.width / 2, height: quadrant.height / 2)
                let out = try image.render(crop: inner, to: PixelSize(width: 8, height: 8)).pixels()
                #expect(Self.nearestCorner(out.mean()) == Self.displayed[orientation]![i], "quadrant \(i)")
            }
        }

        /// An orientation outside 1...8 is ignored.
        @Test func invalidOrientationIsIgnored() throws {
            let image = try SourceImage.open(data: try Self.jpeg(orientation: 9))
            #expect(image.orientation == 1)
            #expect(image.size == PixelSize(width: 80, height: 40))
            #expect(Self.corners(of: try image.proxy(longSide: 80)) == Self.displayed[1])
        }

        /// Encoding writes the oriented pixels without the tag: reopened, the picture looks the
        /// same and says orientation 1.
        @Test(arguments: [6, 7])
        func encodedOutputIsUprightWithoutTheTag(orientation: Int) throws {
            let image = try SourceImage.open(data: try Self.jpeg(orientation: orientation))
            let data = try image.render(crop: PixelRect(x: 0, y: 0, width: 40, height: 80), to: PixelSize(width: 40, height: 80)).encode(.png)
            let reopened = try SourceImage.open(data: data)
            #expect(reopened.orientation == 1)
            #expect(reopened.size == PixelSize(width: 40, height: 80))
            #expect(Self.corners(of: try reopened.proxy(longSide: 80)) == Self.displayed[orientation])
        }
    }
}
