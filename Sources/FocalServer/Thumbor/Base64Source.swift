import Foundation

/// imagor's `b64:` image parts: the source written in base64url (RFC 4648 §5, `=` padding
/// optional), for a source URL awkward to keep in a path (`/unsafe/300x200/b64:aHR0cHM6Ly9…`).
/// The image, a watermark's and a frame's source may all be written so.
enum Base64Source {
    /// The prefix.
    static let prefix = "b64:"

    /// The source `image` spells, when it is `b64:` and base64url that decodes to text (no NUL);
    /// nil otherwise (a name that merely starts with `b64:` is taken as written, as imagor does).
    static func decoded(_ image: String) -> String? {
        guard image.hasPrefix(prefix) else { return nil }
        var text = String(image.dropFirst(prefix.count))
        while text.hasSuffix("=") { text.removeLast() }
        guard !text.isEmpty, text.utf8.allSatisfy({ isAlphabet($0) }) else { return nil }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: standard), let source = String(data: data, encoding: .utf8), !source.isEmpty,
            !source.utf8.contains(0)
        else { return nil }
        return source
    }

    /// Whether `byte` is in base64url's alphabet.
    private static func isAlphabet(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
