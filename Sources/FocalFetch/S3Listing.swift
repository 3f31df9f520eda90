import FocalCore
import Foundation

/// Reads S3's XML answers: a ListObjectsV2 page (keys URL-encoded, `encoding-type=url`) and an
/// error's `<Code>` and `<Message>`. A small scanner for these few flat elements, not a general
/// XML parser.
enum S3Listing {
    /// The objects of a ListObjectsV2 answer and its continuation token.
    /// - Throws: `StorageError` (`storage.unavailable`) when the text is not such an answer.
    static func page(_ text: String, address: String) throws -> S3Client.Page {
        guard text.contains("<ListBucketResult") else {
            throw StorageError(.storageUnavailable, address: address, "the store's listing is not a ListBucketResult", cause: String(text.prefix(200)))
        }
        var objects: [S3Client.Listed] = []
        // Keys are URL-encoded only when the store says so: some ignore `encoding-type=url`.
        let encoded = value(of: "EncodingType", in: text)?.lowercased() == "url"
        for block in elements("Contents", in: text) {
            guard let written = value(of: "Key", in: block), let key = encoded ? percentDecoded(written) : written, !key.isEmpty else { continue }
            let size = value(of: "Size", in: block).flatMap(Int.init) ?? 0
            objects.append(S3Client.Listed(key: key, size: size, etag: value(of: "ETag", in: block)))
        }
        let truncated = value(of: "IsTruncated", in: text) == "true"
        let next = truncated ? value(of: "NextContinuationToken", in: text) : nil
        return S3Client.Page(objects: objects, next: next)
    }

    /// The inner texts of every `<name>…</name>` in `text`.
    static func elements(_ name: String, in text: String) -> [Substring] {
        var out: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            out.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return out
    }

    /// The first `<name>…</name>`'s text in `text`, XML entities decoded; nil when absent.
    static func value(of name: String, in text: some StringProtocol) -> String? {
        guard let open = text.range(of: "<\(name)>"), let close = text[open.upperBound...].range(of: "</\(name)>") else { return nil }
        return unescaped(String(text[open.upperBound..<close.lowerBound]))
    }

    /// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and numeric references decoded.
    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += rest[amp...]
                return out
            }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                // At most 8 digits (failable besides: a number past UInt32 is nil, never a trap).
                let digits = entity.hasPrefix("#x") ? entity.dropFirst(2) : entity.dropFirst()
                let radix = entity.hasPrefix("#x") ? 16 : 10
                let number = entity.hasPrefix("#") && digits.count <= 8 ? UInt32(digits, radix: radix) : nil
                if let number, let scalar = Unicode.Scalar(number) { out.unicodeScalars.append(scalar) } else { out += rest[amp...semi] }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// The value of one hex digit, or nil.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A URL-encoded key decoded (`+` is a space in S3's encoding), or nil when malformed.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
