import Foundation

/// Takes the metadata chunks out of a WebP file. libvips 8.14's webpsave writes an `EXIF` chunk
/// (orientation, resolution, colour space, pixel size) even when told to strip, about 170 bytes
/// that would double a tiny preview and contradict "every output is stripped"; this removes every
/// `EXIF` and `XMP ` chunk and clears their flags in `VP8X`. Anything that is not a well-formed
/// RIFF WebP comes back unchanged.
enum WebPMetadata {
    /// `data` without its `EXIF` and `XMP ` chunks.
    static func stripped(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count >= 20, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x45, 0x42, 0x50] else { return data }
        func le32(_ at: Int) -> UInt64 {
            UInt64(bytes[at]) | UInt64(bytes[at + 1]) << 8 | UInt64(bytes[at + 2]) << 16 | UInt64(bytes[at + 3]) << 24
        }
        guard le32(4) + 8 == UInt64(bytes.count) else { return data }
        var chunks: [ArraySlice<UInt8>] = []
        var removed = false
        var at = 12
        while at < bytes.count {
            guard bytes.count - at >= 8 else { return data }
            let size = le32(at + 4), room = UInt64(bytes.count - at - 8)
            guard size <= room, size + (size & 1) <= room else { return data }
            let end = at + 8 + Int(size + (size & 1))
            let fourCC = bytes[at..<at + 4]
            if fourCC == [0x45, 0x58, 0x49, 0x46] || fourCC == [0x58, 0x4D, 0x50, 0x20] {
                removed = true
            } else {
                chunks.append(bytes[at..<end])
            }
            at = end
        }
        guard removed else { return data }
        var out: [UInt8] = Array(bytes[0..<12])
        for chunk in chunks {
            var chunk = Array(chunk)
            // VP8X: flags in the first payload byte; 0x08 says EXIF, 0x04 XMP.
            if chunk.count > 8, chunk[0..<4] == [0x56, 0x50, 0x38, 0x58] { chunk[8] &= ~UInt8(0x0C) }
            out.append(contentsOf: chunk)
        }
        let size = out.count - 8
        out[4] = UInt8(size & 0xFF)
        out[5] = UInt8(size >> 8 & 0xFF)
        out[6] = UInt8(size >> 16 & 0xFF)
        out[7] = UInt8(size >> 24 & 0xFF)
        return Data(out)
    }
}
