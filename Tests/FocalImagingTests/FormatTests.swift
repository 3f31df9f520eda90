import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// Input formats that the encoder under test cannot write (GIF, TIFF) and PNG variants
    /// (grey, grey + alpha, 16 bits), all built by hand, uncompressed, decoded by libvips.
    @Suite("SourceImage: other input formats") struct FormatTests {
        static let gradient = PixelBuffer.make(width: 24, height: 10) { x, y in RGB(UInt8(x * 10), UInt8(y * 25), UInt8(255 - x * 10)) }

        @Test func gif() throws {
            let data = ImageBytes.gif(width: 6, height: 4, palette: [RGB(255, 0, 0), RGB(0, 0, 255), RGB(0, 255, 0)]) { x, y in
                y == 3 ? 2 : (x < 3 ? 0 : 1)
            }
            let image = try SourceImage.open(data: data)
            #expect(image.size == PixelSize(width: 6, height: 4))
            let pixels = try image.proxy(longSide: 6)
            for y in 0..<4 {
                for x in 0..<6 {
                    let expected = y == 3 ? RGB(0, 255, 0) : (x < 3 ? RGB(255, 0, 0) : RGB(0, 0, 255))
                    #expect(pixels.pixel(x, y) == expected, "pixel \(x),\(y)")
                }
            }
            #expect(image.format == "gif")
        }

        /// BMP and JPEG 2000, which thumbor reads, are refused as unsupported (415) with the reason:
        /// the only loaders this libvips has for them are not safe against hostile files.
        @Test func bmpAndJPEG2000AreRefusedWithTheReason() {
            var bmp = Data("BM".utf8) + Data([70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0])
            bmp += Data(repeating: 0, count: 52)
            let jp2 = Data([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) + Data(repeating: 1, count: 64)
            for (data, name, why) in [(bmp, "BMP", "ImageMagick"), (jp2, "JPEG 2000", "unsafe for untrusted files")] {
                #expect {
                    try SourceImage.open(data: data, name: "photo")
                } throws: { error in
                    guard let error = error as? ImagingError else { return false }
                    return error.code == .inputUnsupported && error.message.contains("is \(name)") && error.message.contains(why)
                }
            }
        }

        @Test func tiff() throws {
            let image = try SourceImage.open(data: ImageBytes.tiff(Self.gradient))
            #expect(image.size == Self.gradient.size)
            #expect(try image.proxy(longSide: 24).bytes == Self.gradient.bytes, "uncompressed TIFF is lossless")
            #expect(image.format == "tiff")
        }

        @Test func tiffFile() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("gradient.tif")
            try ImageBytes.tiff(Self.gradient).write(to: URL(fileURLWithPath: path))
            #expect(try SourceImage.open(path: path).proxy(longSide: 24).bytes == Self.gradient.bytes)
        }

        @Test func handMadeRGBPNGMatchesItsPixels() throws {
            let data = ImageBytes.png(width: 24, height: 10, channels: 3) { x, y in
                let p = Self.gradient.pixel(x, y)
                return [Int(p.r), Int(p.g), Int(p.b)]
            }
            #expect(try SourceImage.open(data: data).proxy(longSide: 24).bytes == Self.gradient.bytes)
        }

        @Test func greyPNGBecomesRGB() throws {
            let data = ImageBytes.png(width: 16, height: 3, channels: 1) { x, _ in [x * 16] }
            let pixels = try SourceImage.open(data: data).proxy(longSide: 16)
            #expect(pixels.size == PixelSize(width: 16, height: 3))
            for x in 0..<16 { #expect(pixels.pixel(x, 1) == RGB(UInt8(x * 16), UInt8(x * 16), UInt8(x * 16))) }
        }

        @Test func greyAlphaPNGIsFlattenedOnWhite() throws {
            let data = ImageBytes.png(width: 4, height: 2, channels: 2) { x, _ in [0, x < 2 ? 0 : 255] }
            let pixels = try SourceImage.open(data: data).proxy(longSide: 4)
            #expect(pixels.pixel(0, 0) == RGB(255, 255, 255))
            #expect(pixels.pixel(3, 1) == RGB(0, 0, 0))
        }

        @Test func halfTransparentRGBAIsBlendedWithWhite() throws {
            let data = ImageBytes.png(width: 4, height: 4, channels: 4) { _, _ in [255, 0, 0, 128] }
            let p = try SourceImage.open(data: data).proxy(longSide: 4).pixel(1, 1)
            // 128/255 red over white: (255, 127, 127), give or take rounding.
            #expect(p.r == 255 && abs(Int(p.g) - 127) <= 2 && abs(Int(p.b) - 127) <= 2, "\(p)")
        }

        @Test func sixteenBitPNGBecomesEightBit() throws {
            let data = ImageBytes.png(width: 8, height: 2, channels: 3, bitDepth: 16) { x, _ in
                [x * 32 * 257, 65535 - x * 32 * 257, 128 * 257]
            }
            let pixels = try SourceImage.open(data: data).proxy(longSide: 8)
            for x in 0..<8 {
                let p = pixels.pixel(x, 0)
                #expect(abs(Int(p.r) - x * 32) <= 1 && abs(Int(p.g) - (255 - x * 32)) <= 1 && abs(Int(p.b) - 128) <= 1, "\(x): \(p)")
            }
        }

        /// A format libvips knows but Focal keeps off for untrusted input (CSV) is not an image.
        @Test func untrustedLoadersAreOff() {
            let csv = Data("1,2,3\n4,5,6\n".utf8)
            #expect(focalError { try SourceImage.open(data: csv) }?.code == .inputNotAnImage)
        }
    }
}
