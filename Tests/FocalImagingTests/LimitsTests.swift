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

extension LibvipsLayer {
    /// `TIFFLayout` and the tile checks it feeds: refused from the first directory, before libtiff
    /// reads a tile.
    @Suite("TIFFLayout") struct TIFFLayoutTests {
        /// A little-endian classic TIFF directory of a grey image, tiled when `tile` is given (its
        /// tiles' offsets and counts are never read here), with no pixel data.
        static func directory(width: Int, height: Int, tile: (Int, Int)? = nil, samples: Int = 1, planar: Bool = false) -> Data {
            var entries: [(tag: Int, type: Int, value: Int)] = [
                (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 8), (262, 3, samples == 1 ? 1 : 2), (277, 3, samples),
            ]
            if let (w, h) = tile { entries += [(322, 4, w), (323, 4, h)] }
            if planar { entries.append((284, 3, 2)) }
            entries.sort { $0.tag < $1.tag }
            var bytes: [UInt8] = [0x49, 0x49, 42, 0] + ImageBytes.le32(8) + ImageBytes.le16(entries.count)
            for entry in entries {
                bytes += ImageBytes.le16(entry.tag) + ImageBytes.le16(entry.type) + ImageBytes.le32(1)
                bytes += entry.type == 3 ? ImageBytes.le16(entry.value) + [0, 0] : ImageBytes.le32(entry.value)
            }
            return Data(bytes + ImageBytes.le32(0))
        }

        @Test func readsTilesAndPlanes() throws {
            let layout = try #require(TIFFLayout.read(from: Self.directory(width: 1000, height: 500, tile: (256, 128))))
            #expect(layout.width == 1000 && layout.height == 500)
            #expect(layout.tiles.across == 4 && layout.tiles.down == 4 && layout.tiles.stored == 16)
            #expect(layout.tileBytes == 256 * 128)
            let planar = try #require(TIFFLayout.read(from: Self.directory(width: 512, height: 512, tile: (256, 256), samples: 3, planar: true)))
            #expect(planar.tiles.stored == 12, "each of the 4 tiles once per sample")
            #expect(planar.tileBytes == 256 * 256, "a plane's tile holds one sample")
            let strips = try #require(TIFFLayout.read(from: Self.directory(width: 100, height: 100)))
            #expect(strips.tileWidth == nil && strips.tiles.stored == 0 && DecodeCost.tiffTileSeconds(strips) == 0)
            #expect(TIFFLayout.read(from: Data([0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0])) == nil, "a directory outside the data")
        }

        @Test func aPickedPageIsCheckedByItsOwnDirectory() throws {
            // A benign first page, then one of 390,625 tiles of 16 × 16.
            let first = Self.directory(width: 100, height: 100), second = Self.directory(width: 10000, height: 10000, tile: (16, 16))
            var bytes = [UInt8](first.prefix(first.count - 4)) + ImageBytes.le32(first.count)
            bytes += second.dropFirst(8)
            let data = Data(bytes)
            #expect(TIFFLayout.read(from: data)?.tileWidth == nil)
            #expect(try #require(TIFFLayout.read(from: data, page: 1)).tileWidth == 16)
            #expect(TIFFLayout.read(from: data, page: 2) == nil, "no third directory")
            let error = focalError { try SourceImage.open(data: data, name: "pages.tif", page: 1) }
            #expect(error?.code == .inputTooCostly, "\(String(describing: error))")
        }

        @Test func tinyTilesAreRefusedAtOpen() {
            // 390,625 tiles of 16 × 16: about a minute of CPU in libvips 8.14.
            let data = Self.directory(width: 10000, height: 10000, tile: (16, 16))
            #expect(DecodeCost.tiffTileSeconds(TIFFLayout.read(from: data)!) > 30)
            let error = focalError { try SourceImage.open(data: data, name: "tiles.tif") }
            #expect(error?.code == .inputTooCostly)
            #expect(error?.publicMessage.contains("390625 tiles of 16×16") == true, "\(String(describing: error))")
            #expect(error?.publicMessage.contains("maxDecodeTime") == true)
        }

        @Test func ordinaryTilesPass() throws {
            // A 100 MP photo in 256-px tiles, and in 64-px ones: well under the 2 s limit.
            for side in [256, 64] {
                let layout = try #require(TIFFLayout.read(from: Self.directory(width: 10000, height: 10000, tile: (side, side))))
                #expect(DecodeCost.tiffTileSeconds(layout) < 2, "\(side)-px tiles")
            }
        }

        /// Attacker-written directories: a count of 2^64 - 1 (which once trapped a multiply), a tag
        /// given twice (libtiff keeps the first: so must the estimate), tiles given as BYTE.
        @Test func hostileDirectoriesAreReadAsLibtiffReadsThem() throws {
            // BigTIFF: II, 43, offset size 8, 0, first directory at 16; one entry of tag 256, LONG8,
            // count 2^64 - 1, value 0.
            var big: [UInt8] = [0x49, 0x49, 43, 0, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]
            big += [1, 0, 0, 0, 0, 0, 0, 0]  // one entry
            big += [0, 1, 16, 0] + [UInt8](repeating: 0xFF, count: 8) + [UInt8](repeating: 0, count: 8)
            big += [UInt8](repeating: 0, count: 8)
            #expect(TIFFLayout.read(from: Data(big)) != nil, "read without trapping")

            // TileWidth and TileLength 16, then again 4096: the first pair counts.
            var twice = Self.directory(width: 10000, height: 10000, tile: (16, 16))
            twice = Self.withExtraEntries(twice, [(322, 4, 4096), (323, 4, 4096)])
            let layout = try #require(TIFFLayout.read(from: twice))
            #expect(layout.tileWidth == 16 && layout.tileHeight == 16)
            #expect(focalError { try SourceImage.open(data: twice, name: "twice.tif") }?.code == .inputTooCostly)

            // Tiles given as BYTE 16: still tiles of 16.
            let bytes = Self.withExtraEntries(Self.directory(width: 10000, height: 10000), [(322, 1, 16), (323, 1, 16)])
            #expect(TIFFLayout.read(from: bytes)?.tiles.stored == 625 * 625)
        }

        /// `directory` with more entries appended to its one directory (after the others, so that
        /// a repeated tag comes second), its entry count raised to match.
        static func withExtraEntries(_ data: Data, _ extra: [(tag: Int, type: Int, value: Int)]) -> Data {
            var bytes = [UInt8](data)
            let count = Int(bytes[8]) | Int(bytes[9]) << 8
            let end = 10 + count * 12
            var added: [UInt8] = []
            for entry in extra {
                added += ImageBytes.le16(entry.tag) + ImageBytes.le16(entry.type) + ImageBytes.le32(1)
                added += entry.type == 1 ? [UInt8(entry.value), 0, 0, 0] : ImageBytes.le32(entry.value)
            }
            bytes.insert(contentsOf: added, at: end)
            let total = count + extra.count
            bytes[8] = UInt8(total & 0xFF)
            bytes[9] = UInt8(total >> 8)
            return Data(bytes)
        }

        @Test func tilesLibvipsRefusesAreTooCostly() {
            // 8192 × 8192 RGB in one tile: 201 MB, over libvips's 100 MB a tile.
            let error = focalError { try SourceImage.open(data: Self.directory(width: 8192, height: 8192, tile: (8192, 8192), samples: 3), name: "big.tif") }
            #expect(error?.code == .inputTooCostly)
            #expect(error?.publicMessage.contains("8192×8192 tile") == true, "\(String(describing: error))")
        }
    }
}
