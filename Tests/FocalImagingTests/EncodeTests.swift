import FocalCore
@testable import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// `RenderedImage.encode`: real encoders, checked by magic numbers and by decoding again.
    @Suite("RenderedImage: encode") struct EncodeTests {
        static func magicMatches(_ data: Data, _ format: ImageFormat) -> Bool {
            switch format {
            case .jpeg: data.starts(with: [0xFF, 0xD8, 0xFF]) && data.suffix(2) == Data([0xFF, 0xD9])
            case .png: data.starts(with: ImageBytes.pngSignature)
            case .webp: data.starts(with: Array("RIFF".utf8)) && data.count > 12 && Array(data[8..<12]) == Array("WEBP".utf8)
            case .avif: data.count > 12 && Array(data[4..<12]) == Array("ftypavif".utf8)
            case .gif: data.starts(with: Array("GIF89a".utf8)) || data.starts(with: Array("GIF87a".utf8))
            case .heic: data.count > 12 && Array(data[4..<12]) == Array("ftypheic".utf8)
            case .tiff: data.starts(with: [0x49, 0x49, 0x2A, 0x00]) || data.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            case .jxl: data.starts(with: [0xFF, 0x0A]) || data.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20])
            }
        }

        @Test(arguments: ImageFormat.allCases, [Fixture.chelsea, .graceHopper])
        func encodedBytesReopenWithTheSameSize(format: ImageFormat, fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let output = PixelSize(width: 120, height: 90)
            let rendered = try image.render(crop: PixelRect(x: 20, y: 30, width: 400, height: 250), to: output)
            let data = try rendered.encode(format)
            #expect(Self.magicMatches(data, format), "\(data.prefix(12).map { String(format: "%02x", $0) })")
            let reopened = try OutputDecoding.open(data).image
            #expect(reopened.size == output)
            #expect(reopened.orientation == 1)
            // The magic numbers of the other formats do not match.
            for other in ImageFormat.allCases where other != format { #expect(!Self.magicMatches(data, other)) }
        }

        /// WebP carries no metadata chunk (libvips 8.14 writes an EXIF one even when stripping):
        /// every chunk is image data, the RIFF size is the file's, and a photo with EXIF of its
        /// own (grace_hopper.jpg's camera fields) leaves none of it in the output.
        @Test(arguments: [Fixture.chelsea, .graceHopper])
        func webpHasNoMetadataChunk(fixture: Fixture) throws {
            let image = try SourceImage.open(path: fixture.path)
            let data = try image.render(crop: PixelRect(x: 0, y: 0, width: 300, height: 300), to: PixelSize(width: 16, height: 16)).encode(.webp)
            let bytes = [UInt8](data)
            func le32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
            #expect(le32(4) + 8 == bytes.count)
            var chunks: [String] = []
            var at = 12
            while at + 8 <= bytes.count {
                chunks.append(String(decoding: bytes[at..<at + 4], as: UTF8.self))
                at += 8 + le32(at + 4) + (le32(at + 4) & 1)
            }
            #expect(at == bytes.count)
            #expect(!chunks.contains("EXIF") && !chunks.contains("XMP "), "\(chunks)")
            if chunks.first == "VP8X" { #expect(bytes[20] & 0x0C == 0, "VP8X names no metadata") }
            #expect(try SourceImage.open(data: data).size == PixelSize(width: 16, height: 16))
            // Not a WebP, or a cut one: unchanged.
            #expect(WebPMetadata.stripped(Data(data.prefix(30))) == Data(data.prefix(30)))
            #expect(WebPMetadata.stripped(Data("RIFF0000WEBPVP8X".utf8)) == Data("RIFF0000WEBPVP8X".utf8))
        }

        /// The reopened format reads "jpeg", "png", "webp", "avif": the raw values of `ImageFormat`
        /// (an AVIF told from a HEIC by its brand); HEIC reopens as libvips's "heif".
        @Test(arguments: ImageFormat.allCases)
        func reopenedFormatIsTheOneWritten(format: ImageFormat) throws {
            let data = try RenderedImage(pixels: .make(width: 8, height: 8) { x, y in RGB(UInt8(x * 30), UInt8(y * 30), 99) })
                .encode(format)
            #expect(try OutputDecoding.open(data).format == (format == .heic ? "heif" : format.rawValue))
        }

        /// PNG is lossless: pixels in, the same pixels out.
        @Test func pngRoundTripIsExact() throws {
            let pixels = PixelBuffer.make(width: 33, height: 21) { x, y in RGB(UInt8(x * 7), UInt8(y * 12), UInt8((x * y) % 256)) }
            let data = try RenderedImage(pixels: pixels).encode(.png)
            let back = try SourceImage.open(data: data).proxy(longSide: 33)
            #expect(back.size == pixels.size)
            #expect(back.bytes == pixels.bytes)
        }

        /// Lossy formats keep the picture: the same mean colour and layout as the input.
        @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
        func lossyRoundTripKeepsThePicture(format: ImageFormat) throws {
            let image = try SourceImage.open(path: Fixture.astronaut.path)
            let original = try image.proxy(longSide: 256)
            let data = try image.decode(width: 256, height: 256).encode(format, quality: 90)
            let back = try SourceImage.open(data: data).proxy(longSide: 256)
            #expect(back.mean().distance(to: original.mean()) < 3)
            for q in [PixelRect(x: 0, y: 0, width: 128, height: 128), PixelRect(x: 128, y: 128, width: 128, height: 128)] {
                #expect(back.mean(q).distance(to: original.mean(q)) < 4)
            }
        }

        @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
        func higherQualityMeansMoreBytes(format: ImageFormat) throws {
            let image = try SourceImage.open(path: Fixture.chelsea.path)
            func size(_ quality: Int) throws -> Int { try image.decode(width: 451, height: 300).encode(format, quality: quality).count }
            let (low, middle, high) = (try size(10), try size(50), try size(95))
            #expect(low < middle, "\(low) < \(middle)")
            #expect(middle < high, "\(middle) < \(high)")
        }

        /// AVIF holds at most `avifMaxPixels` (its encoder's memory): one more row is refused
        /// before anything is encoded, by both encoders; the largest allowed encodes.
        @Test func avifOutputIsBoundedInPixels() throws {
            let image = try SourceImage.open(path: Fixture.astronaut.path)
            let side = Int(Double(ImageFormat.avifMaxPixels).squareRoot())
            #expect(ImageFormat.avif.holds(PixelSize(width: side, height: side)))
            #expect(!ImageFormat.avif.holds(PixelSize(width: side, height: side + 1)))
            #expect(ImageFormat.webp.holds(PixelSize(width: side, height: side + 1)))
            let over = PixelSize(width: side, height: side + 1)
            let whole = PixelRect(x: 0, y: 0, width: 512, height: 512)
            let error = focalError { try image.encode(crop: whole, to: over, format: .avif) }
            #expect(error?.code == .outputEncodeFailed)
            let data = try image.encode(crop: whole, to: PixelSize(width: side, height: side), format: .avif, quality: 30)
            #expect(Self.magicMatches(data, .avif))
            #expect(try SourceImage.open(data: data).size == PixelSize(width: side, height: side))
        }

        /// Quality outside 1...100 is refused with `request.invalid`, not clamped; the ends encode.
        @Test func qualityOutOfRangeIsRefused() throws {
            let image = try SourceImage.open(path: Fixture.chelsea.path)
            func encode(_ quality: Int) throws -> Data { try image.decode(width: 200, height: 133).encode(.jpeg, quality: quality) }
            for quality in [0, -5, 101, 500, Int.max, Int.min] {
                #expect(focalError { try encode(quality) }?.code == .requestInvalid, "quality \(quality)")
            }
            #expect(try encode(1) != encode(100))
        }

        /// An image with alpha encodes to JPEG flattened on white, and `pixels()` flattens the
        /// same way; PNG and WebP accept it as it is.
        @Test func alphaIsFlattenedOnWhiteForJPEG() throws {
            // Left half: transparent red. Right half: opaque blue.
            let png = ImageBytes.png(width: 40, height: 20, channels: 4) { x, _ in x < 20 ? [255, 0, 0, 0] : [0, 0, 255, 255] }
            let image = try SourceImage.open(data: png)
            let jpeg = try image.decode(width: 40, height: 20).encode(.jpeg, quality: 95)
            #expect(Self.magicMatches(jpeg, .jpeg))
            let back = try SourceImage.open(data: jpeg).proxy(longSide: 40)
            let left = back.mean(PixelRect(x: 2, y: 2, width: 14, height: 16))
            let right = back.mean(PixelRect(x: 24, y: 2, width: 14, height: 16))
            #expect(left.r > 245 && left.g > 245 && left.b > 245, "transparent became \(left), not white")
            #expect(right.b > 230 && right.r < 25 && right.g < 25, "opaque blue became \(right)")

            let pixels = try image.proxy(longSide: 40)
            #expect(pixels.pixel(5, 5) == RGB(255, 255, 255))
            #expect(pixels.pixel(30, 5) == RGB(0, 0, 255))
            for format in [ImageFormat.png, .webp] {
                let data = try image.decode(width: 40, height: 20).encode(format)
                #expect(Self.magicMatches(data, format))
                #expect(try SourceImage.open(data: data).size == PixelSize(width: 40, height: 20))
            }
        }

        /// Metadata is stripped: an input whose EXIF names the camera and says "rotate" encodes to
        /// upright pixels without its EXIF, so reopening reports orientation 1 and the upright size.
        /// WebP: libvips 8.14's webpsave ignores `strip` and rebuilds EXIF from the image's
        /// exif-* fields, so without care the input's EXIF (camera maker; on phone photos, the GPS
        /// position) would be copied into every WebP output. It also always adds a small EXIF block of its own
        /// (resolution, orientation 1), even for inputs without any, so for WebP the test looks for
        /// the input's data rather than for any "Exif" at all.
        @Test(arguments: ImageFormat.allCases)
        func metadataIsStripped(format: ImageFormat) throws {
            let stored = PixelBuffer.make(width: 60, height: 30) { x, _ in x < 30 ? RGB(250, 250, 250) : RGB(10, 10, 10) }
            let plain = try RenderedImage(pixels: stored).encode(.jpeg)
            let tagged = ImageBytes.inserting(ImageBytes.exifOrientationSegment(6, make: "SecretCam 3000"), intoJPEG: plain)
            let source = try SourceImage.open(data: tagged)
            try #require(source.orientation == 6)
            try #require(tagged.range(of: Data("SecretCam".utf8)) != nil)
            let data = try source.decode(width: 30, height: 60).encode(format)
            let reopened = try OutputDecoding.open(data).image
            #expect(reopened.orientation == 1)
            #expect(reopened.size == PixelSize(width: 30, height: 60))
            let top = try reopened.proxy(longSide: 60).mean(PixelRect(x: 0, y: 0, width: 30, height: 25))
            #expect(top.brightness > 200, "the rotation is in the pixels now: the bright half is on top")
            #expect(data.range(of: Data("SecretCam".utf8)) == nil, "the camera maker leaked into \(format)")
            if format != .webp { #expect(data.range(of: Data("Exif".utf8)) == nil) }
        }
    }
}
