import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// Opening real photos from files and bytes, and decoding proxies of them.
    @Suite("SourceImage: open and proxy") struct SourceImageTests {
        /// Sizes as `scripts/setup.sh fixtures` documents them; the formats follow the file types.
        static let photos: [(fixture: Fixture, size: PixelSize, format: String)] = [
            (.astronaut, PixelSize(width: 512, height: 512), "png"),
            (.chelsea, PixelSize(width: 451, height: 300), "png"),
            (.coffee, PixelSize(width: 600, height: 400), "png"),
            (.graceHopper, PixelSize(width: 512, height: 600), "jpeg"),
        ]

        @Test(arguments: photos.map { ($0.fixture, $0.size) })
        func fileReportsSizeOrientationAndName(fixture: Fixture, size: PixelSize) throws {
            let image = try SourceImage.open(path: fixture.path)
            #expect(image.size == size)
            #expect(image.orientation == 1)
            #expect(image.name == fixture.path)
        }

        @Test(arguments: Fixture.allCases)
        func bytesReportTheSameHeaderAsTheFile(fixture: Fixture) throws {
            let fromFile = try SourceImage.open(path: fixture.path)
            let fromData = try SourceImage.open(data: try fixture.data)
            #expect(fromData.size == fromFile.size)
            #expect(fromData.orientation == fromFile.orientation)
            #expect(fromData.format == fromFile.format)
            #expect(fromData.name == "bytes")
            #expect(try SourceImage.open(data: try fixture.data, name: "upload.bin").name == "upload.bin")
        }

        /// `format` is the short name ("png"), not libvips's class name ("VipsForeignLoadPngSource").
        @Test(arguments: photos.map { ($0.fixture, $0.format) })
        func formatIsTheShortDecoderName(fixture: Fixture, format: String) throws {
            #expect(try SourceImage.open(path: fixture.path).format == format)
            #expect(try SourceImage.open(data: try fixture.data).format == format)
        }

        /// The long side becomes `longSide`; the short side keeps the aspect ratio, rounded.
        @Test(arguments: Fixture.allCases, [1, 64, 100, 257])
        func proxyHasTheRequestedLongSide(fixture: Fixture, longSide: Int) throws {
            let image = try SourceImage.open(path: fixture.path)
            let proxy = try image.proxy(longSide: longSide)
            let (long, short) = (max(image.size.width, image.size.height), min(image.size.width, image.size.height))
            let expectedShort = max(1, Int((Double(short) * Double(longSide) / Double(long)).rounded()))
            let landscape = image.size.width >= image.size.height
            #expect(proxy.size == (landscape
                ? PixelSize(width: longSide, height: expectedShort)
                : PixelSize(width: expectedShort, height: longSide)))
            #expect(proxy.bytes.count == proxy.width * proxy.height * 3)
        }

        @Test func proxyIsNotEnlargedUnlessAsked() throws {
            let image = try SourceImage.open(path: Fixture.chelsea.path)
            #expect(try image.proxy(longSide: 1000).size == image.size)
            let big = try image.proxy(longSide: 902, enlarge: true)
            #expect(big.size == PixelSize(width: 902, height: 600))
            // An enlarged copy shows the same picture: same mean colour, same layout.
            let small = try image.proxy(longSide: 451)
            #expect(big.mean().distance(to: small.mean()) < 3)
            let topLeft = PixelRect(x: 0, y: 0, width: 200, height: 150)
            #expect(big.mean(scaled(topLeft, from: small.size, to: big.size)).distance(to: small.mean(topLeft)) < 4)
        }

        /// Real photos decode to real pictures: not uniform, different from each other, and a
        /// small proxy agrees region by region with the full-resolution decode.
        @Test(arguments: Fixture.allCases)
        func proxyShowsThePhoto(fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let full = try image.proxy(longSide: max(image.size.width, image.size.height))
            #expect(full.size == image.size)
            let proxy = try image.proxy(longSide: 96)
            #expect(proxy.brightnessSpread > 15, "a photo is not a flat colour")
            #expect(proxy.mean().distance(to: full.mean()) < 3)
            // Each quadrant of the proxy matches the same quadrant of the full decode best.
            func quadrants(_ size: PixelSize) -> [PixelRect] {
                let (w, h) = (size.width / 2, size.height / 2)
                return [PixelRect(x: 0, y: 0, width: w, height: h), PixelRect(x: w, y: 0, width: w, height: h),
                        PixelRect(x: 0, y: h, width: w, height: h), PixelRect(x: w, y: h, width: w, height: h)]
            }
            let fullMeans = quadrants(full.size).map { full.mean($0) }
            for (i, q) in quadrants(proxy.size).enumerated() {
                let m = proxy.mean(q)
                #expect(m.distance(to: fullMeans[i]) < 6, "quadrant \(i): proxy \(m) vs full \(fullMeans[i])")
            }
        }

        @Test func differentPhotosHaveDifferentProxies() throws {
            let means = try Fixture.allCases.map { try SourceImage.open(path: $0.path).proxy(longSide: 64).mean() }
            for i in means.indices {
                for j in means.indices where j > i {
                    #expect(means[i].distance(to: means[j]) > 10, "\(Fixture.allCases[i]) \(means[i]) vs \(Fixture.allCases[j]) \(means[j])")
                }
            }
        }

        @Test(arguments: Fixture.allCases)
        func fileAndBytesDecodeToTheSamePixels(fixture: Fixture) throws {
            let a = try SourceImage.open(path: fixture.path).proxy(longSide: 80)
            let b = try SourceImage.open(data: try fixture.data).proxy(longSide: 80)
            #expect(a.size == b.size)
            #expect(a.bytes == b.bytes)
        }

        /// libvips works on its own copy of the bytes: changing the caller's buffer afterwards
        /// changes nothing.
        @Test func bytesAreCopied() throws {
            var data = try Fixture.coffee.data
            let image = try SourceImage.open(data: data)
            let before = try image.proxy(longSide: 60).bytes
            data.resetBytes(in: 0..<data.count)
            let after = try image.proxy(longSide: 60).bytes
            #expect(before == after)
        }

        @Test(arguments: [(37, 91), (1, 1), (600, 1), (1200, 800)])
        func decodeScalesToExactlyTheSizeAsked(width: Int, height: Int) throws {
            let image = try SourceImage.open(path: Fixture.coffee.path)
            let decoded = try image.decode(width: width, height: height)
            #expect(decoded.size == PixelSize(width: width, height: height))
            let pixels = try decoded.pixels()
            #expect(pixels.size == PixelSize(width: width, height: height))
            #expect(try image.pixels(width: width, height: height).bytes == pixels.bytes)
        }

        /// A decoded image can be used more than once (its pixels, then an encoding).
        /// A decoded image is computed once, so it can be read again (a lazy sequential decode
        /// failed here with "out of order read").
        @Test(arguments: [Fixture.coffee, .graceHopper])
        func decodedImageCanBeUsedTwice(fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let decoded = try image.decode(width: 90, height: 70)
            let first = try decoded.pixels()
            let second = try decoded.pixels()
            #expect(second.bytes == first.bytes)
            _ = try decoded.encode(.png)
        }
    }
}
