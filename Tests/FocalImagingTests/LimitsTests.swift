import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// `ImageLimits`: byte and pixel limits, enforced before any pixel is decoded.
    @Suite("SourceImage: limits") struct LimitsTests {
        /// A PNG claiming 100 000 x 100 000 pixels (10 gigapixels) with 4 bytes of pixel data. If
        /// it were decoded it would fail on missing data; it must be refused for its size.
        static var hugePNG: Data {
            Data(ImageBytes.pngSignature + ImageBytes.ihdr(width: 100_000, height: 100_000, bitDepth: 8, colorType: 2)
                + ImageBytes.pngChunk("IDAT", ImageBytes.zlibStored([0, 1, 2, 3])) + ImageBytes.pngChunk("IEND", []))
        }

        @Test func pngClaimingTenGigapixelsIsRefusedAtOpen() {
            let error = focalError { try SourceImage.open(data: Self.hugePNG, name: "bomb.png") }
            #expect(error?.code == .inputTooManyPixels)
            #expect(error?.description.contains("bomb.png") == true)
            #expect(error?.description.contains("100000x100000") == true)
        }

        /// The same header without pixel data: libpng cannot finish reading the header (it looks
        /// for the first IDAT), so the error is about reading, but the input is still refused.
        @Test func pngHeaderAloneIsRefused() {
            let error = focalError { try SourceImage.open(data: ImageBytes.pngHeaderOnly(width: 100_000, height: 100_000)) }
            #expect(error.map { [.inputTooManyPixels, .inputCorrupt].contains($0.code) } == true, "\(String(describing: error))")
        }

        @Test func pngHugeHeaderFileIsRefusedAtOpen() throws {
            let folder = try Scratch()
            defer { folder.remove() }
            let path = folder.path("bomb.png")
            try Self.hugePNG.write(to: URL(fileURLWithPath: path))
            let error = focalError { try SourceImage.open(path: path) }
            #expect(error?.code == .inputTooManyPixels)
            #expect(error?.source == path)
        }

        /// A real JPEG whose frame header is patched to claim 60 000 x 60 000 pixels.
        @Test func jpegClaimingTooManyPixelsIsRefusedAtOpen() throws {
            let patched = try #require(ImageBytes.patchingFrameSize(ofJPEG: try Fixture.graceHopper.data, width: 60_000, height: 60_000))
            let error = focalError { try SourceImage.open(data: patched, name: "lie.jpg") }
            #expect(error?.code == .inputTooManyPixels)
            #expect(error?.description.contains("lie.jpg") == true)
            // The patch itself is sound: a modest lie is accepted and reported.
            let modest = try #require(ImageBytes.patchingFrameSize(ofJPEG: try Fixture.graceHopper.data, width: 500, height: 400))
            #expect(try SourceImage.open(data: modest).size == PixelSize(width: 500, height: 400))
        }

        /// width × height may equal the limit, not exceed it (astronaut.png is 512 x 512).
        @Test func pixelLimitBoundary() throws {
            let exact = 512 * 512
            #expect(try SourceImage.open(path: Fixture.astronaut.path, limits: ImageLimits(maxPixels: exact)).size.area == exact)
            let error = focalError { try SourceImage.open(path: Fixture.astronaut.path, limits: ImageLimits(maxPixels: exact - 1)) }
            #expect(error?.code == .inputTooManyPixels)
            let fromData = focalError { try SourceImage.open(data: try Fixture.astronaut.data, limits: ImageLimits(maxPixels: exact - 1)) }
            #expect(fromData?.code == .inputTooManyPixels)
        }

        /// The pixel limit is checked on the oriented size; for a rotated JPEG that is the same
        /// area, and the limit is not fooled by the swap.
        @Test func pixelLimitOnRotatedJPEG() throws {
            let plain = try RenderedImage(pixels: .make(width: 60, height: 20) { _, _ in RGB(9, 9, 9) }).encode(.jpeg)
            let rotated = ImageBytes.inserting(ImageBytes.exifOrientationSegment(6), intoJPEG: plain)
            #expect(try SourceImage.open(data: rotated, limits: ImageLimits(maxPixels: 1200)).size == PixelSize(width: 20, height: 60))
            #expect(focalError { try SourceImage.open(data: rotated, limits: ImageLimits(maxPixels: 1199)) }?.code == .inputTooManyPixels)
        }

        @Test func byteLimitBoundaryForData() throws {
            let data = try Fixture.graceHopper.data
            #expect(try SourceImage.open(data: data, limits: ImageLimits(maxInputBytes: data.count)).size.width == 512)
            let error = focalError { try SourceImage.open(data: data, name: "big.jpg", limits: ImageLimits(maxInputBytes: data.count - 1)) }
            #expect(error?.code == .inputTooLarge)
            #expect(error?.description.contains("big.jpg") == true)
        }

        @Test func byteLimitBoundaryForFiles() throws {
            let path = Fixture.graceHopper.path
            let count = try Fixture.graceHopper.data.count
            #expect(try SourceImage.open(path: path, limits: ImageLimits(maxInputBytes: count)).size.width == 512)
            let error = focalError { try SourceImage.open(path: path, limits: ImageLimits(maxInputBytes: count - 1)) }
            #expect(error?.code == .inputTooLarge)
            #expect(error?.source == path)
        }

        @Test func defaultsAreSixtyFourMebibytesAndOneHundredMegapixels() {
            #expect(ImageLimits.default.maxInputBytes == 64 * 1024 * 1024)
            #expect(ImageLimits.default.maxPixels == 100_000_000)
        }
    }
}


extension LibvipsLayer {
    /// `TIFFPages`: the chain of directories counted without libtiff.
    @Suite("TIFFPages") struct TIFFPagesTests {
        /// A little-endian classic TIFF of `pages` empty directories, each pointing at the next; the
        /// last points at `last` (0 ends the chain).
        static func chain(_ pages: Int, last: UInt32 = 0) -> Data {
            var bytes: [UInt8] = [0x49, 0x49, 42, 0] + ImageBytes.le32(8)
            for page in 0..<pages {
                let next = page + 1 < pages ? UInt32(8 + (page + 1) * 6) : last
                bytes += ImageBytes.le16(0) + ImageBytes.le32(Int(next))
            }
            return Data(bytes)
        }

        @Test func countsTheChain() {
            #expect(TIFFPages.count(in: Self.chain(1), limit: 10) == 1)
            #expect(TIFFPages.count(in: Self.chain(7), limit: 10) == 7)
            #expect(TIFFPages.count(in: Self.chain(700), limit: 10) == 11, "stops one past the limit")
        }

        @Test func aLoopCountsPastAnyLimit() {
            #expect(TIFFPages.count(in: Self.chain(3, last: 8), limit: 1000) == 1001)
        }

        @Test func aChainLeadingOutsideTheDataEnds() {
            #expect(TIFFPages.count(in: Self.chain(3, last: 0xFFFF_FFF0), limit: 10) == 3)
            #expect(TIFFPages.count(in: Self.chain(3).prefix(15), limit: 10) == 1)
            #expect(TIFFPages.count(in: Data([0x49, 0x49, 42, 0]), limit: 10) == 0)
        }

        @Test func bigTIFF() {
            // Header: II, 43, offset size 8, reserved 0, first directory at 16; one entry-less directory.
            let bytes: [UInt8] = [0x49, 0x49, 43, 0, 8, 0, 0, 0] + [16, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
            #expect(TIFFPages.count(in: Data(bytes), limit: 10) == 1)
        }

        @Test func tooManyPagesAreRefusedAtOpen() {
            let error = focalError { try SourceImage.open(data: Self.chain(12), name: "pages.tif", limits: ImageLimits(maxPages: 10)) }
            #expect(error?.code == .inputTooCostly)
            #expect(error?.description.contains("maxPages") == true)
        }
    }
}
