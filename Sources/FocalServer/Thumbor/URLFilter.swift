import Focal
import FocalCore
import Foundation

/// The filters only a URL takes, beside the crop option table's (which every door takes): how an
/// answer is sent rather than what it shows, and the spellings thumbor and imagor give options
/// the table names otherwise. And the filters of thumbor and imagor that Focal refuses, each with
/// the reason its 400 gives.
public struct URLFilter: Sendable {
    /// The filter's name, as in `filters:NAME(…)`.
    public let name: String
    /// What it takes.
    public let values: String
    /// One line on what it does.
    public let summary: String
    /// An example of its arguments.
    public let example: String

    /// Every URL-only filter, in the order of `docs/url.md`'s table.
    public static let all: [URLFilter] = [
        URLFilter(name: "aspect", values: "`A:B`", summary: "the output's aspect (with one side, or none, given)", example: "16:9"),
        URLFilter(
            name: "preset", values: "a preset's name (`focal serve --preset NAME=OPTIONS`)",
            summary: "the URL read as if written with the preset's options and filters, then its own filters (`--presets-only` serves only these)",
            example: "thumb"),
        URLFilter(name: "redact_oval", values: "as `redact`", summary: "imagor's spelling of `redact(…,oval)`", example: "blur"),
        URLFilter(name: "strip_icc", values: "none", summary: "accepted; outputs never carry a colour profile (they are sRGB)", example: ""),
        URLFilter(name: "strip_exif", values: "none", summary: "accepted; outputs never carry metadata", example: ""),
        URLFilter(name: "strip_metadata", values: "none", summary: "imagor's; accepted, outputs never carry metadata", example: ""),
        URLFilter(
            name: "trim", values: "a tolerance (0 to 442) and a corner (`top-left`, `bottom-right`), either or both",
            summary: "imagor's filter spelling of the `trim/` segment: the borders of the corner's colour cut off first", example: "10,bottom-right"),
        URLFilter(
            name: "cover", values: "none",
            summary: "thumbor's cover of a GIF: an animation's first frame alone, as `max_frames(1)` (a still GIF, as in thumbor, unless `format` says otherwise); a still is left as it is",
            example: ""),
        URLFilter(
            name: "extract_focal", values: "none",
            summary: "the image part is a thumbor URL (`host/unsafe/240x220:480x260/photo.jpg`): its crop becomes the focal region and its image the source; any other image part is left as it is",
            example: ""),
        URLFilter(
            name: "max_age", values: "seconds, 0 to 31536000",
            summary: "the answer's `Cache-Control: public, max-age=N` (0: `no-cache`), instead of the server's `--max-age`", example: "3600"),
        URLFilter(
            name: "expire", values: "a Unix time in milliseconds",
            summary: "the URL answers 410 `request.expired` from then on (sign it, or anyone can change it); caches keep the answer no longer than that",
            example: "1893456000000"),
        URLFilter(
            name: "attachment", values: "a file name (letters, digits, `-`, `_`, `.`, at most 100), or none",
            summary: "`Content-Disposition: attachment`: browsers download the image instead of showing it, as the name given (else the image's own name)",
            example: "portrait.jpg"),
    ]

    /// thumbor's filters that thumbor 7.8 reads and leaves the image as it is, with when: an
    /// unsafe URL is redirected to the one without them, a signed one served without them.
    public static let ignored: [String: String] = [
        "gifv": "thumbor turns a GIF into a video only with a video encoder, and 7.8 ignores it without one; Focal has none",
        "red_eye": "not among thumbor 7.8's built-in filters, so it ignores it; Focal does not correct red eyes",
        "proportion": "ignored, as thumbor does, when its value is not over 0 and at most 1",
        "rotate": "ignored, as thumbor does, when its angle is not a multiple of 90",
        "blur": "`blur(0)` is ignored, as thumbor does",
        "focal": "ignored, as thumbor does, when it names no region (`focal()`, `focal(garbage)`, `focal(0x0:0x0)`)",
        "format": "ignored, as thumbor does, when it names a format thumbor does not know (`format(asdf)`): the source's is kept",
        "to_colorspace": "imagor's; `to_colorspace()` and `to_colorspace(srgb)` change nothing, outputs are sRGB already (another profile is a 400)",
    ]

    /// Whether thumbor 7.8 leaves the image as it is for `name(argument)` (`ignored`).
    static func ignores(_ name: String, _ argument: String) -> Bool {
        switch name {
        case "gifv", "red_eye": return true
        case "to_colorspace": return ["", "srgb"].contains(argument.lowercased())
        case "proportion":
            guard argument.count <= 12, let value = Double(argument), value.isFinite else { return true }
            return value <= 0 || value > 1
        case "rotate":
            guard let value = Int(argument) else { return argument.count <= 12 }
            return value % 90 != 0
        case "blur":
            return argument.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) == "0" } ?? false
        case "focal":
            // thumbor applies AxB:CxD with an extent; Focal also reads points and fractions.
            var options = FocalOptions()
            guard let option = CropOption.named("focus"), (try? option.apply(argument, to: &options)) != nil else { return true }
            return false
        case "format":
            let known = ["png", "jpeg", "jpg", "gif", "webp", "avif", "heic", "heif", "tiff", "tif", "jxl", "auto"]
            return !known.contains(argument.lowercased())
        default: return false
        }
    }

    /// thumbor's and imagor's filters that Focal does not apply, with the reason a 400 gives.
    public static let refused: [String: String] = [
        "redeye": "redeye() is not supported: Focal does not correct red eyes; hide faces with redact() instead",
    ]

    /// The table of the URL-only filters, then those Focal refuses with their reasons
    /// (`make generated` writes it between the `url-filters` markers of `docs/url.md`).
    public static var markdownTable: String {
        var lines = ["| URL filter (an example) | values | what it does |", "|---|---|---|"]
        for filter in all { lines.append("| `\(filter.name)(\(filter.example))` | \(filter.values) | \(filter.summary) |") }
        for (name, when) in ignored.sorted(by: { $0.key < $1.key }) {
            lines.append("| `\(name)` | — | \(name == "gifv" || name == "red_eye" ? "ignored: " : "")\(when.replacingOccurrences(of: "|", with: "\\|")) (a URL with it is redirected to the one without) |")
        }
        for (name, reason) in refused.sorted(by: { $0.key < $1.key }) {
            lines.append("| `\(name)` | — | refused (400): \(reason.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The argument of `max_age(N)`, checked.
    static func maxAge(_ text: String) throws(ServerError) -> Int {
        guard text.count <= 8, !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let value = Int(text), value <= 31_536_000 else {
            throw ServerError.invalid("max_age(\(text.excerpt(20))) takes whole seconds from 0 to 31536000")
        }
        return value
    }

    /// The argument of `expire(MS)`, checked.
    static func expire(_ text: String) throws(ServerError) -> Int64 {
        guard text.count <= 15, !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let value = Int64(text) else {
            throw ServerError.invalid("expire(\(text.excerpt(20))) takes a Unix time in milliseconds, such as 1893456000000")
        }
        return value
    }

    /// The argument of `attachment(NAME)`, checked: nil for none (the image's own name).
    static func attachment(_ text: String) throws(ServerError) -> String? {
        guard !text.isEmpty else { return nil }
        let allowed = text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
        guard allowed, text.utf8.count <= 100, text.first != "." else {
            throw ServerError.invalid("attachment(\(text.excerpt(20))) takes a file name of letters, digits, -, _ and . (at most 100), not starting with .")
        }
        return text
    }
}
