public import Foundation

/// Recognises an image format from its first bytes, whatever a server or a file name claims.
public enum ImageSignature {
    /// The bytes needed to recognise every format below.
    public static let prefixLength = 32

    /// The format the bytes start with (`jpeg`, `png`, `gif`, `webp`, `tiff`, `heif`, `avif`,
    /// `jxl`), or nil when they start like no image format Focal reads.
    /// - Parameter bytes: At least the first `prefixLength` bytes, or the whole input if shorter.
    public static func format(of bytes: some Collection<UInt8>) -> String? {
        let b = Array(bytes.prefix(prefixLength))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "webp" }
        // Classic TIFF, then BigTIFF (version 43).
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "tiff" }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return "tiff" }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return "jxl" }
        if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            let brand = String(decoding: b[8..<12], as: UTF8.self)
            if ["avif", "avis"].contains(brand) { return "avif" }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return "heif" }
        }
        return nil
    }

    /// A format thumbor reads that Focal refuses on purpose, by its first bytes: its name and why
    /// (BMP and JPEG 2000: the only loaders this libvips has for them are not safe against hostile
    /// files); nil for any other bytes.
    public static func refusedFormat(of data: Data) -> (name: String, why: String)? {
        let head = [UInt8](data.prefix(18))
        if head.count >= 18, head[0] == 0x42, head[1] == 0x4D, [12, 40, 52, 56, 64, 108, 124].contains(Int(head[14]) | Int(head[15]) << 8), head[16] == 0, head[17] == 0 {
            return ("BMP", "this libvips reads BMP only through ImageMagick, whose loaders are not safe against hostile files")
        }
        let jp2: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        if head.starts(with: jp2) || head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return ("JPEG 2000", "libvips marks its JPEG 2000 loader (OpenJPEG) unsafe for untrusted files")
        }
        return nil
    }

    /// A short description of what non-image bytes look like, for error messages: "an HTML page",
    /// "a PDF document", "JSON", "text", or "binary data".
    public static func describe(_ bytes: some Collection<UInt8>) -> String {
        let head = String(decoding: bytes.prefix(256), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if head.hasPrefix("<!doctype html") || head.hasPrefix("<html") || head.contains("<body") { return "an HTML page" }
        if head.hasPrefix("<?xml") || head.hasPrefix("<svg") { return head.contains("<svg") ? "an SVG drawing" : "XML" }
        if head.hasPrefix("%pdf-") { return "a PDF document" }
        if head.hasPrefix("{") || head.hasPrefix("[") { return "JSON" }
        let printable = bytes.prefix(256).allSatisfy { $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) || $0 >= 0x80 }
        return printable ? "text" : "binary data"
    }
}
