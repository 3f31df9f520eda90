import FocalTools
import FocalCore
import FocalImaging
import Foundation

/// Image files built byte by byte, so that the tests need no tool and no encoder but the one
/// under test. Each writer follows its format's specification; nothing here is compressed.
enum ImageBytes {
    // MARK: Checksums

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 as PNG uses it (ISO 3309).
    static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func pngChunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return be32(UInt32(body.count)) + typed + be32(crc32(typed))
    }

    static func ihdr(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8) -> [UInt8] {
        pngChunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colorType, 0, 0, 0])
    }

    /// A PNG that is only a signature and a header chunk claiming `width` × `height` RGB pixels.
    static func pngHeaderOnly(width: Int, height: Int) -> Data {
        Data(pngSignature + ihdr(width: width, height: height, bitDepth: 8, colorType: 2))
    }

    /// zlib data made of stored (uncompressed) deflate blocks.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let n = min(65535, raw.count - offset)
            let final: UInt8 = offset + n == raw.count ? 1 : 0
            out += [final] + le16(n) + le16(n ^ 0xFFFF) + raw[offset..<(offset + n)]
            offset += n
        } while offset < raw.count
        return out + be32(adler32(raw))
    }

    /// A complete PNG. `samples(x, y)` gives the channel values of one pixel (1 grey, 2 grey and
    /// alpha, 3 RGB, 4 RGBA), each 0...255 for 8 bits or 0...65535 for 16.
    static func png(
        width: Int, height: Int, channels: Int, bitDepth: Int = 8, _ samples: (Int, Int) -> [Int]
    ) -> Data {
        let colorType: UInt8 = [1: 0, 2: 4, 3: 2, 4: 6][channels]!
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)  // filter: none
            for x in 0..<width {
                for v in samples(x, y) { raw += bitDepth == 16 ? be16(v) : [UInt8(v)] }
            }
        }
        return Data(
            pngSignature + ihdr(width: width, height: height, bitDepth: UInt8(bitDepth), colorType: colorType)
                + pngChunk("IDAT", zlibStored(raw)) + pngChunk("IEND", []))
    }

    // MARK: GIF

    /// A GIF of up to four colours, LZW-coded with literal codes only: a clear code before every
    /// two pixels keeps the code width at 3 bits, so no dictionary is needed.
    static func gif(width: Int, height: Int, palette: [RGB], _ index: (Int, Int) -> Int) -> Data {
        precondition(palette.count <= 4)
        var out = Array("GIF89a".utf8) + le16(width) + le16(height) + [0x91, 0, 0]
        for i in 0..<4 {
            let c = i < palette.count ? palette[i] : RGB(0, 0, 0)
            out += [c.r, c.g, c.b]
        }
        out += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
        out.append(2)  // LZW minimum code size
        var codes: [Int] = []
        var pixels: [Int] = []
        for y in 0..<height { for x in 0..<width { pixels.append(index(x, y)) } }
        for (n, p) in pixels.enumerated() {
            if n % 2 == 0 { codes.append(4) }  // clear
            codes.append(p)
        }
        codes.append(5)  // end of information
        var packed: [UInt8] = []
        var buffer = 0, bits = 0
        for code in codes {
            buffer |= code << bits
            bits += 3
            while bits >= 8 {
                packed.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                bits -= 8
            }
        }
        if bits > 0 { packed.append(UInt8(buffer & 0xFF)) }
        var offset = 0
        while offset < packed.count {
            let n = min(255, packed.count - offset)
            out += [UInt8(n)] + packed[offset..<(offset + n)]
            offset += n
        }
        out += [0, 0x3B]
        return Data(out)
    }

    // MARK: TIFF

    /// An uncompressed little-endian RGB TIFF with one strip.
    static func tiff(_ pixels: PixelBuffer) -> Data {
        let entries: [(tag: Int, type: Int, count: Int, value: Int)]
        let entryCount = 10
        let ifdSize = 2 + entryCount * 12 + 4
        let bitsOffset = 8 + ifdSize
        let dataOffset = bitsOffset + 6
        entries = [
            (256, 4, 1, pixels.width), (257, 4, 1, pixels.height), (258, 3, 3, bitsOffset), (259, 3, 1, 1),
            (262, 3, 1, 2), (273, 4, 1, dataOffset), (277, 3, 1, 3), (278, 4, 1, pixels.height),
            (279, 4, 1, pixels.bytes.count), (284, 3, 1, 1),
        ]
        var out: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + le16(entryCount)
        for e in entries {
            out += le16(e.tag) + le16(e.type) + le32(e.count)
            out += e.type == 3 && e.count == 1 ? le16(e.value) + [0, 0] : le32(e.value)
        }
        out += le32(0)
        out += le16(8) + le16(8) + le16(8)
        out += pixels.bytes
        return Data(out)
    }

    // MARK: JPEG surgery

    /// An APP1 Exif segment whose TIFF structure holds orientation (tag 0x0112) = `value` and,
    /// when given, the camera maker (tag 0x010F, ASCII).
    static func exifOrientationSegment(_ value: Int, bigEndian: Bool = true, make: String? = nil) -> [UInt8] {
        func s16(_ v: Int) -> [UInt8] { bigEndian ? be16(v) : le16(v) }
        func s32(_ v: Int) -> [UInt8] { bigEndian ? be32(UInt32(v)) : le32(v) }
        let makeBytes = make.map { Array($0.utf8) + [0] }
        let entryCount = makeBytes == nil ? 1 : 2
        let stringOffset = 8 + 2 + entryCount * 12 + 4  // right after the IFD
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] : [0x49, 0x49, 42, 0]
        tiff += s32(8)  // first IFD right after the header
        tiff += s16(entryCount)
        if let makeBytes {  // entries sorted by tag
            tiff += s16(0x010F) + s16(2) + s32(makeBytes.count) + s32(stringOffset)
        }
        tiff += s16(0x0112) + s16(3) + s32(1) + s16(value) + [0, 0]  // SHORT, count 1, value left-justified
        tiff += s32(0)  // no next IFD
        tiff += makeBytes ?? []
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xE1] + be16(payload.count + 2) + payload
    }

    /// `jpeg` with `segment` inserted right after the SOI marker.
    static func inserting(_ segment: [UInt8], intoJPEG jpeg: Data) -> Data {
        precondition(jpeg.starts(with: [0xFF, 0xD8]))
        return Data([0xFF, 0xD8] + segment + jpeg.dropFirst(2))
    }

    /// `jpeg` with the size in its start-of-frame header replaced.
    static func patchingFrameSize(ofJPEG jpeg: Data, width: Int, height: Int) -> Data? {
        var bytes = [UInt8](jpeg)
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                bytes.replaceSubrange((i + 5)..<(i + 7), with: be16(height))
                bytes.replaceSubrange((i + 7)..<(i + 9), with: be16(width))
                return Data(bytes)
            }
            i += 2 + length
        }
        return nil
    }
}
