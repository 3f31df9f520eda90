public import Focal
import Foundation

/// A request in thumbor's URL grammar, the one thumbor, imagor and their client libraries
/// (libthumbor, Pollexor, ruby-thumbor, Thumbor-PHP) generate:
///
/// `/{SIGNATURE|unsafe}/[debug/][meta/][trim[:CORNER][:TOLERANCE]/][AxB:CxD/ (pixels or fractions)][(adaptive-)(full-)fit-in/][-]Wx[-]H/[left|center|right/][top|middle|bottom/][smart/][filters:NAME(ARGS):.../]IMAGE`
///
/// `W` and `H` may be `0` or left out (keep the source's aspect) or `orig` (the source's own
/// size); a leading `-` mirrors the output on that axis. `IMAGE` is everything after the last
/// option, as sent (still percent-encoded).
public struct ThumborURL: Hashable, Sendable {
    /// How the image fits the box with `fit-in`.
    public enum FitIn: String, Hashable, Sendable {
        /// Scaled down to fit inside the box, never up, nothing cropped.
        case normal = "fit-in"
        /// The box turned to the image's orientation first.
        case adaptive = "adaptive-fit-in"
        /// The image covers the box instead (the larger scale), nothing cropped.
        case full = "full-fit-in"
        /// Both.
        case adaptiveFull = "adaptive-full-fit-in"
    }

    /// One side of the requested size.
    public enum Side: Hashable, Sendable {
        /// Not given, or `0`: follows the other side and the source's aspect.
        case auto
        /// `orig`: the source's own.
        case original
        /// That many pixels.
        case pixels(Int)
    }

    /// Horizontal alignment of the crop.
    public enum HorizontalAlignment: String, Hashable, Sendable { case left, center, right }
    /// Vertical alignment of the crop.
    public enum VerticalAlignment: String, Hashable, Sendable { case top, middle, bottom }

    /// One filter: its name and its argument text (inside the parentheses, as sent).
    public struct Filter: Hashable, Sendable {
        /// The name, e.g. `quality`.
        public var name: String
        /// The arguments as one string, e.g. `80`.
        public var arguments: String
    }

    /// The signature, or nil for `unsafe`.
    public var signature: String?
    /// The path after the signature (no leading slash), as sent: what the signature covers.
    public var signedPath: String
    /// `debug/`: draw what Focal saw on the output (thumbor draws its focal points).
    public var debug = false
    /// `meta/`: answer with JSON instead of the image.
    public var meta = false
    /// `trim[:top-left|:bottom-right][:TOLERANCE]/`, as sent: the borders cut off first.
    public var trim: String?
    /// `AxB:CxD`: a manual crop in source pixels (left, top, right, bottom).
    public var manualCrop: (left: Int, top: Int, right: Int, bottom: Int)?
    /// imagor's relative crop, `AxB:CxD` in fractions of the image (`0.1x0.1:0.9x0.9`).
    public var relativeCrop: Box?
    /// `fit-in` and its variants.
    public var fitIn: FitIn?
    /// The requested width.
    public var width: Side = .auto
    /// The requested height.
    public var height: Side = .auto
    /// Mirroring from `-W` and `-H`.
    public var flip: Flip = []
    /// Horizontal alignment; default centre.
    public var horizontalAlignment: HorizontalAlignment?
    /// Vertical alignment; default middle.
    public var verticalAlignment: VerticalAlignment?
    /// `smart/`: Focal's subject-aware plan.
    public var smart = false
    /// The filters in order.
    public var filters: [Filter] = []
    /// The image part, as sent.
    public var image: String
    /// The part of `image` that names the source: `image` itself, or with `extract_focal()` the
    /// image of the thumbor URL inside it (see `ExtractFocal`).
    public var source: String
    /// With `extract_focal()`, the manual crop of the thumbor URL inside the image part (left,
    /// top, right, bottom in source pixels): the request's focal region.
    public var extractedCrop: (left: Int, top: Int, right: Int, bottom: Int)?

    public static func == (a: ThumborURL, b: ThumborURL) -> Bool { a.signedPath == b.signedPath && a.signature == b.signature }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(signature)
        hasher.combine(signedPath)
    }

    /// Parses a request path (the part of the URL before any `?`).
    /// - Throws: `ServerError` (`request.invalid`) naming what is malformed.
    public init(path: String) throws(ServerError) {
        var rest = Substring(path)
        if rest.hasPrefix("/") { rest.removeFirst() }
        guard let slash = rest.firstIndex(of: "/") else {
            throw ServerError.invalid("the URL has no image: expected /unsafe/... or /SIGNATURE/... then the options and the image")
        }
        let first = rest[..<slash]
        guard !first.isEmpty else { throw ServerError.invalid("the URL starts with an empty part; expected unsafe or a signature") }
        signature = first == "unsafe" ? nil : String(first)
        if first.contains("%") {
            throw ServerError(
                .requestNotCanonical, "the signature is percent-encoded; send it as it was made (URL-safe base64, = as it is)")
        }
        signedPath = String(rest[rest.index(after: slash)...])
        image = ""
        source = ""

        var segments = signedPath.split(separator: "/", omittingEmptySubsequences: false)[...]
        if segments.first == "debug" {
            debug = true
            segments.removeFirst()
        }
        if segments.first == "meta" {
            meta = true
            segments.removeFirst()
        }
        if let segment = segments.first, segment == "trim" || segment.hasPrefix("trim:") {
            do { _ = try Trim(text: String(segment)) } catch { throw ServerError.invalid(error.publicMessage) }
            trim = String(segment)
            segments.removeFirst()
        }
        if let segment = segments.first, let crop = try Self.manualCrop(segment) {
            manualCrop = crop
            segments.removeFirst()
        } else if let segment = segments.first, let crop = try Self.relativeCrop(segment) {
            relativeCrop = crop
            segments.removeFirst()
        }
        if let segment = segments.first, let fit = FitIn(rawValue: String(segment)) {
            fitIn = fit
            segments.removeFirst()
        }
        if let segment = segments.first, try parseDimensions(segment) { segments.removeFirst() }
        if let segment = segments.first, let align = HorizontalAlignment(rawValue: String(segment)) {
            horizontalAlignment = align
            segments.removeFirst()
        }
        if let segment = segments.first, let align = VerticalAlignment(rawValue: String(segment)) {
            verticalAlignment = align
            segments.removeFirst()
        }
        if segments.first == "smart" {
            smart = true
            segments.removeFirst()
        }
        if let segment = segments.first, segment.hasPrefix("filters:") {
            // Filter arguments may hold slashes (a URL): the filters end at the part ending in ")".
            var text = String(segments.removeFirst().dropFirst("filters:".count))
            while !text.hasSuffix(")"), let next = segments.first {
                segments.removeFirst()
                text += "/" + next
            }
            filters = try Self.filters(text)
        }
        image = segments.joined(separator: "/")
        guard !image.isEmpty else { throw ServerError.invalid("the URL names no image after its options") }
        source = image
        if filters.contains(where: { $0.name == "extract_focal" }), let inner = try ExtractFocal.find(in: image) {
            (source, extractedCrop) = (inner.image, inner.crop)
        }
        // A signed URL's spelling is its signer's: nobody without the key can write another.
        // (What names the source has one spelling; the thumbor URL around it is free text.)
        if signature == nil { try Self.checkCanonical(image: source) }
        var once = Set<String>()
        for filter in filters where filter.name != "focal" {
            guard once.insert(filter.name).inserted else {
                throw ServerError(.requestNotCanonical, "the filter \(filter.name)() is given twice; give it once")
            }
        }
    }

    /// Refuses an image part written another way than the one Focal accepts, so that one image has
    /// one URL (and a cache in front one copy): percent-encodings in upper case and never of a
    /// letter, digit, `-`, `.`, `_` or `~`; a path with no empty, `.` or `..` part; an id in lower
    /// case. A source URL (`http…`) or object address (`s3://…`) is taken however it is encoded,
    /// and may be written in imagor's `b64:` too; a path or an id may not (it has a plain spelling).
    static func checkCanonical(image: String) throws(ServerError) {
        if let source = Base64Source.decoded(image) {
            let lowered = source.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") else {
                throw ServerError(.requestNotCanonical, "b64: is for source URLs; name a file under the root, or an id, by its plain path")
            }
            return
        }
        let decoded = image.removingPercentEncoding ?? image
        let lowered = decoded.lowercased()
        // A source URL (or object address) is read as it decodes: clients encode whole URLs in many ways.
        guard !lowered.hasPrefix("http://"), !lowered.hasPrefix("https://"), !lowered.hasPrefix("s3://") else { return }
        let bytes = Array(image.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                    throw ServerError.invalid("the image part has a % that does not start an encoded byte (%XX)")
                }
                let decoded = high << 4 | low
                let lower = bytes[i + 1...i + 2].contains { (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
                if lower || isUnreserved(decoded) {
                    let written = String(decoding: bytes[i...i + 2], as: UTF8.self)
                    let canonical = isUnreserved(decoded) ? String(UnicodeScalar(decoded)) : written.uppercased()
                    throw ServerError(.requestNotCanonical, "the image part writes \(written) where the URL must say \(canonical)")
                }
                i += 3
            } else {
                i += 1
            }
        }
        if decoded.hasPrefix("id:") {
            if decoded != lowered { throw ServerError(.requestNotCanonical, "an image id is written in lower case") }
            return
        }
        for part in decoded.split(separator: "/", omittingEmptySubsequences: false) where part.isEmpty || part == "." || part == ".." {
            throw ServerError(.requestNotCanonical, "the image path has an empty, . or .. part; name the file by its plain path")
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// RFC 3986's unreserved characters, which are never percent-encoded in a canonical URL.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || [UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~")].contains(byte)
    }

    /// `AxB:CxD`, or nil when the segment is not one.
    static func manualCrop(_ segment: Substring) throws(ServerError) -> (Int, Int, Int, Int)? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2 else { return nil }
        var numbers: [Int] = []
        for corner in corners {
            let parts = corner.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            for part in parts {
                guard let value = try Self.number(part) else { throw ServerError.invalid("crop \(String(segment).excerpt()) has a number too large") }
                numbers.append(value)
            }
        }
        return (numbers[0], numbers[1], numbers[2], numbers[3])
    }

    /// imagor's `AxB:CxD` in fractions (every value from 0 to 1, one with a decimal point), as a
    /// box of the image's fractions; nil when the segment is not one.
    static func relativeCrop(_ segment: Substring) throws(ServerError) -> Box? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard corners.count == 2, segment.contains(".") else { return nil }
        var values: [Double] = []
        for corner in corners {
            let parts = corner.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            for part in parts {
                guard part.count <= 12, part.allSatisfy({ $0.isASCIIDigit || $0 == "." }), let value = Double(part) else { return nil }
                values.append(value)
            }
        }
        guard values.allSatisfy({ $0 >= 0 && $0 <= 1 }), values[2] > values[0], values[3] > values[1] else {
            throw ServerError.invalid("crop \(String(segment).excerpt()) in fractions needs values from 0 to 1, its right-bottom corner past its left-top one")
        }
        return Box(x: values[0], y: values[1], width: values[2] - values[0], height: values[3] - values[1])
    }

    /// `[-]Wx[-]H`; false when the segment is not one.
    mutating func parseDimensions(_ segment: Substring) throws(ServerError) -> Bool {
        let parts = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        func side(_ text: Substring) throws(ServerError) -> (flip: Bool, side: Side)? {
            var text = text
            let flip = text.hasPrefix("-")
            if flip { text.removeFirst() }
            if text.isEmpty { return (flip, .auto) }
            if text == "orig" { return (flip, .original) }
            guard text.allSatisfy(\.isASCIIDigit) else { return nil }
            guard let value = try Self.number(text) else { throw ServerError.invalid("size \(String(segment).excerpt()) has a number too large") }
            return (flip, value == 0 ? .auto : .pixels(value))
        }
        guard let w = try side(parts[0]), let h = try side(parts[1]) else { return false }
        (width, height) = (w.side, h.side)
        if w.flip { flip.insert(.horizontal) }
        if h.flip { flip.insert(.vertical) }
        return true
    }

    /// Parses `name(args):name(args)`, splitting on colons outside parentheses.
    static func filters(_ text: String) throws(ServerError) -> [Filter] {
        var result: [Filter] = []
        var depth = 0, current = ""
        func finish() throws(ServerError) {
            guard !current.isEmpty else { return }
            guard let open = current.firstIndex(of: "("), current.hasSuffix(")") else {
                throw ServerError.invalid("filter '\(current.excerpt())' must look like name(arguments)")
            }
            let name = String(current[..<open])
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw ServerError.invalid("filter '\(current.excerpt())' has no valid name")
            }
            result.append(Filter(name: name, arguments: String(current[current.index(after: open)..<current.index(before: current.endIndex)])))
            current = ""
        }
        for character in text {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case ":" where depth == 0:
                try finish()
                continue
            default: break
            }
            guard depth >= 0 else { throw ServerError.invalid("filters '\(text.excerpt())' have an unmatched parenthesis") }
            current.append(character)
        }
        guard depth == 0 else { throw ServerError.invalid("filters '\(text.excerpt())' have an unmatched parenthesis") }
        try finish()
        guard result.count <= 32 else { throw ServerError.invalid("at most 32 filters are accepted") }
        return result
    }

    /// A decimal of at most 9 digits (so that it fits anything it is used for), or nil.
    /// - Throws: `ServerError` (`request.not_canonical`) for a number with a leading zero.
    static func number(_ text: Substring) throws(ServerError) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy(\.isASCIIDigit) else { return nil }
        if text.count > 1, text.first == "0" {
            throw ServerError(.requestNotCanonical, "the number \(String(text).excerpt(12)) has a leading zero; write it without one")
        }
        return Int(text)
    }
}

extension Character {
    /// `0` to `9`, and nothing else (not other scripts' digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
