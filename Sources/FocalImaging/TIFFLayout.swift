public import Foundation

/// How the first image of a TIFF is laid out, read from its first directory without decoding:
/// its size, whether it is cut into tiles and their size, its samples and planes. What a decode
/// costs depends on it: libvips reads a tiled TIFF tile by tile, and each tile costs more the
/// more tiles a row holds (`DecodeCost.tiffTileSeconds`), so a file of tiny tiles takes a minute.
public struct TIFFLayout: Hashable, Sendable {
    /// The image's width and height, as its directory says.
    public var width = 0, height = 0
    /// The tiles' width and height, or nil for a TIFF in strips.
    public var tileWidth: Int?, tileHeight: Int?
    /// Samples per pixel, and bits of the first sample.
    public var samples = 1, bits = 8
    /// Whether each sample is stored in a plane of its own (PlanarConfiguration 2): then every
    /// tile is stored once per sample.
    public var planar = false

    /// The tiles across and down, and the tiles stored in all (every plane); zero for strips.
    public var tiles: (across: Int, down: Int, stored: Int) {
        guard let tileWidth, let tileHeight, tileWidth > 0, tileHeight > 0 else { return (0, 0, 0) }
        let across = (width + tileWidth - 1) / tileWidth, down = (height + tileHeight - 1) / tileHeight
        let (product, overflow) = across.multipliedReportingOverflow(by: down)
        let planes = planar ? max(1, samples) : 1
        let (stored, overflow2) = product.multipliedReportingOverflow(by: planes)
        return (across, down, overflow || overflow2 ? Int.max : stored)
    }

    /// The bytes one decoded tile holds (saturating); zero for strips.
    public var tileBytes: Int {
        guard let tileWidth, let tileHeight else { return 0 }
        let perPixel = Double(planar ? 1 : max(1, samples)) * Double(max(1, bits)) / 8
        let bytes = Double(tileWidth) * Double(tileHeight) * perPixel
        return bytes >= Double(Int.max) ? Int.max : Int(bytes.rounded(.up))
    }

    /// The layout of directory `page` (0, the first, by default) of `data` (classic TIFF or
    /// BigTIFF), or nil when `data` is not a TIFF or that directory cannot be read (libtiff then
    /// says what is wrong).
    public static func read(from data: Data, page: Int = 0) -> TIFFLayout? {
        data.withUnsafeBytes { raw -> TIFFLayout? in
            let b = raw.bindMemory(to: UInt8.self)
            let n = b.count
            guard n >= 8, b[0] == b[1], b[0] == 0x49 || b[0] == 0x4D else { return nil }
            let little = b[0] == 0x49
            func read(_ at: Int, _ size: Int) -> UInt64? {
                guard at >= 0, size <= 8, at <= n - size else { return nil }
                var value: UInt64 = 0
                for k in 0..<size { value |= UInt64(b[at + (little ? k : size - 1 - k)]) << (8 * UInt64(k)) }
                return value
            }
            guard let version = read(2, 2), version == 42 || version == 43 else { return nil }
            let big = version == 43
            let (entrySize, countSize, offsetSize) = big ? (20, 8, 8) : (12, 2, 4)
            guard var first = read(big ? 8 : 4, offsetSize), first < UInt64(n) else { return nil }
            // Directory `page`: each directory ends with the next one's offset (a loop ends the walk).
            var visited = Set<UInt64>()
            for _ in 0..<max(0, page) {
                guard visited.insert(first).inserted, let count = read(Int(first), countSize), count < UInt64(n),
                    let next = read(Int(first) + countSize + Int(count) * entrySize, offsetSize), next != 0, next < UInt64(n)
                else { return nil }
                first = next
            }
            guard let entries = read(Int(first), countSize), entries < UInt64(n) else { return nil }
            var layout = TIFFLayout()
            var seen = Set<UInt64>()
            for index in 0..<Int(entries) {
                let entry = Int(first) + countSize + index * entrySize
                guard let tag = read(entry, 2), let type = read(entry + 2, 2), let count = read(entry + 4, big ? 8 : 4) else { return nil }
                // libtiff keeps the first of a repeated tag and ignores the rest: so does this.
                guard seen.insert(tag).inserted else { continue }
                // Every integer type libtiff reads these tags from (BYTE, SHORT, LONG, LONG8 and
                // their signed forms, UNDEFINED): the first value, inline or where the entry points.
                let size: Int, signed: Bool
                switch type {
                case 1, 7: (size, signed) = (1, false)
                case 6: (size, signed) = (1, true)
                case 3: (size, signed) = (2, false)
                case 8: (size, signed) = (2, true)
                case 4: (size, signed) = (4, false)
                case 9: (size, signed) = (4, true)
                case 16: (size, signed) = (8, false)
                case 17: (size, signed) = (8, true)
                default: continue
                }
                guard count >= 1 else { continue }
                let field = entry + 4 + (big ? 8 : 4)
                // Inline when count × size fits the field (compared without multiplying: the count
                // is the file's, up to 2^64 - 1).
                let inline = count <= UInt64(offsetSize / size)
                let at = inline ? field : (read(field, offsetSize).flatMap { $0 < UInt64(n) ? Int($0) : nil } ?? -1)
                guard var value = read(at, size) else { continue }
                // A negative signed value is no size: left as absent (libtiff refuses it).
                if signed, value & (1 << (UInt64(size) * 8 - 1)) != 0 { continue }
                value = min(value, UInt64(Int32.max))
                let number = Int(value)
                switch tag {
                case 256: layout.width = number
                case 257: layout.height = number
                case 258: layout.bits = number
                case 277: layout.samples = number
                case 284: layout.planar = number == 2
                case 322: layout.tileWidth = number
                case 323: layout.tileHeight = number
                default: break
                }
            }
            if layout.tileWidth == nil || layout.tileHeight == nil { (layout.tileWidth, layout.tileHeight) = (nil, nil) }
            return layout
        }
    }
}
