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

    /// imagor's `stretch/`: the output takes the size asked, the image's aspect not kept.
    public var stretch = false
    /// imagor's paddings after the size, `L x T[:R x B]` (left, top, right, bottom; `LxT` alone
    /// is as much on the other sides): the image is made for what they leave of the size, and
    /// the rest filled (`fill(…)`'s colour, white by default).
    public var padding: (left: Int, top: Int, right: Int, bottom: Int)?
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
    /// The options before the filters as one canonical spelling would write them (numbers without
    /// leading zeros), one entry per path segment.
    public private(set) var canonicalOptions: [String] = []
    /// The image part in its canonical spelling: percent-encodings in upper case and never of an
    /// unreserved character, a path with no empty or `.` part (and `..` resolved inside it), an
    /// id in lower case, a path rather than its `b64:`.
    public private(set) var canonicalImage = ""
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
        var options: [String] = []
        // Each option read is taken off the front, in its canonical spelling (`written` unless
        // the option has another).
        var respelled = false
        func take(_ canonical: String? = nil) {
            let written = String(segments.removeFirst())
            respelled = respelled || (canonical.map { $0 != written } ?? false)
            options.append(canonical ?? written)
        }
        if segments.first == "debug" {
            debug = true
            take()
        }
        if segments.first == "meta" {
            meta = true
            take()
        }
        if let segment = segments.first, segment == "trim" || segment.hasPrefix("trim:") {
            do { _ = try Trim(text: String(segment)) } catch { throw ServerError.invalid(error.publicMessage) }
            trim = String(segment)
            take()
        }
        if let segment = segments.first, let crop = try Self.manualCrop(segment) {
            if crop.2 > crop.0, crop.3 > crop.1 {
                manualCrop = crop
                take("\(crop.0)x\(crop.1):\(crop.2)x\(crop.3)")
            } else if signature != nil {
                // A crop with no area (its corners reversed or equal) is ignored, as thumbor and
                // imagor do; a signed URL keeps it as its signer wrote it.
                take()
            } else {
                // The unsafe URL is answered at its spelling without it.
                segments.removeFirst()
            }
        } else if let segment = segments.first, let crop = try Self.relativeCrop(segment) {
            relativeCrop = crop
            take()
        }
        if let segment = segments.first, let fit = FitIn(rawValue: String(segment)) {
            fitIn = fit
            take()
        }
        if segments.first == "stretch" {
            stretch = true
            take()
        }
        if let segment = segments.first, let size = try parseDimensions(segment) {
            take(size)
            // imagor's paddings come after the size.
            if let segment = segments.first, let padding = try Self.padding(segment) {
                self.padding = padding
                let (l, t, r, b) = padding
                take(l == r && t == b ? "\(l)x\(t)" : "\(l)x\(t):\(r)x\(b)")
            }
        }
        if let segment = segments.first, let align = HorizontalAlignment(rawValue: String(segment)) {
            horizontalAlignment = align
            take()
        }
        if let segment = segments.first, let align = VerticalAlignment(rawValue: String(segment)) {
            verticalAlignment = align
            take()
        }
        if segments.first == "smart" {
            smart = true
            take()
        }
        canonicalOptions = options
        // A signed URL is served as its signer wrote it, but numbers have one spelling there too
        // (a holder of the key cannot mint copies of one image).
        if signature != nil, respelled { throw ServerError(.requestNotCanonical, "a number has a leading zero; write it without one") }
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
        // An unsafe one is answered at its canonical spelling (`ImageRequest.canonicalPath`).
        // (With extract_focal() the thumbor URL around the source is free text.)
        canonicalImage = image
        if signature == nil {
            let canonical = try Self.canonical(image: source)
            if source == image {
                canonicalImage = canonical
            } else if canonical != source {
                throw ServerError(.requestNotCanonical, "the image inside extract_focal()'s URL must be written \(canonical.excerpt())")
            }
        }
    }

    /// The image part written the one way Focal caches it under, so that one image has one URL
    /// (and a cache in front one copy): percent-encodings in upper case and never of a letter,
    /// digit, `-`, `.`, `_` or `~`; a path with no empty or `.` part and its `..` resolved; an id in
    /// lower case; a path or id named by imagor's `b64:` written plainly. A source URL (`http…`)
    /// or object address (`s3://…`) is taken however it is encoded, `b64:` included.
    /// - Throws: `ServerError` (`request.invalid`) for a `%` that does not start an encoded
    ///   byte, or a path whose `..` leaves the root.
    static func canonical(image: String) throws(ServerError) -> String {
        if let source = Base64Source.decoded(image) {
            let lowered = source.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") { return image }
            // A path or id in base64: its plain spelling.
            do { return try canonical(image: FocalImageMarkup.encoded(source)) } catch { throw ServerError.invalid("the b64: image names no valid path") }
        }
        let decoded = image.removingPercentEncoding ?? image
        let lowered = decoded.lowercased()
        // A source URL (or object address) is read as it decodes: clients encode whole URLs in many ways.
        guard !lowered.hasPrefix("http://"), !lowered.hasPrefix("https://"), !lowered.hasPrefix("s3://") else { return image }
        let bytes = Array(image.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "%") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                throw ServerError.invalid("the image part has a % that does not start an encoded byte (%XX)")
            }
            let byte = high << 4 | low
            out += isUnreserved(byte) ? [byte] : Array(String(decoding: bytes[i...i + 2], as: UTF8.self).uppercased().utf8)
            i += 3
        }
        let written = String(decoding: out, as: UTF8.self)
        if lowered.hasPrefix("id:") { return "id:" + written.dropFirst(3).lowercased() }
        // Empty and `.` parts dropped, `..` resolved, never above the root.
        var parts: [Substring] = []
        for part in written.split(separator: "/", omittingEmptySubsequences: false) {
            switch part {
            case "", ".": continue
            case "..":
                guard !parts.isEmpty else { throw ServerError(.inputNotFound, "the image path leaves the root with ..; name a file under it") }
                parts.removeLast()
            default: parts.append(part)
            }
        }
        // A part that only decodes to an empty, `.` or `..` one names nothing under the root.
        let canonical = parts.joined(separator: "/")
        let decodedParts = (canonical.removingPercentEncoding ?? canonical).split(separator: "/", omittingEmptySubsequences: false)
        if decodedParts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) {
            throw ServerError(.inputNotFound, "no image \(image.excerpt()) here: a path's parts are names, not empty, . or ..")
        }
        return canonical
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
        guard let numbers = try pixelCorners(segment, corners: 2...2, naming: "crop") else { return nil }
        return (numbers[0], numbers[1], numbers[2], numbers[3])
    }

    /// imagor's paddings `LxT` or `LxT:RxB` in pixels, or nil when the segment is not one.
    static func padding(_ segment: Substring) throws(ServerError) -> (Int, Int, Int, Int)? {
        guard let numbers = try pixelCorners(segment, corners: 1...2, naming: "padding") else { return nil }
        return numbers.count == 4 ? (numbers[0], numbers[1], numbers[2], numbers[3]) : (numbers[0], numbers[1], numbers[0], numbers[1])
    }

    /// The numbers of `AxB[:CxD]` with `corners` corners, or nil when the segment is not one.
    /// - Throws: `request.invalid` for a number of more than 9 digits.
    private static func pixelCorners(_ segment: Substring, corners count: ClosedRange<Int>, naming what: String) throws(ServerError) -> [Int]? {
        let corners = segment.split(separator: ":", omittingEmptySubsequences: false)
        guard count.contains(corners.count) else { return nil }
        var numbers: [Int] = []
        for corner in corners {
            let parts = corner.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else { return nil }
            for part in parts {
                guard let value = try Self.number(part) else { throw ServerError.invalid("\(what) \(String(segment).excerpt()) has a number too large") }
                numbers.append(value)
            }
        }
        return numbers
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

    /// `[-]Wx[-]H`: its canonical spelling (no leading zeros), or nil when the segment is not one.
    mutating func parseDimensions(_ segment: Substring) throws(ServerError) -> String? {
        let parts = segment.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func side(_ text: Substring) throws(ServerError) -> (flip: Bool, side: Side, canonical: String)? {
            var text = text
            let flip = text.hasPrefix("-")
            if flip { text.removeFirst() }
            let sign = flip ? "-" : ""
            if text.isEmpty { return (flip, .auto, sign) }
            if text == "orig" { return (flip, .original, sign + "orig") }
            guard text.allSatisfy(\.isASCIIDigit) else { return nil }
            guard let value = try Self.number(text) else { throw ServerError.invalid("size \(String(segment).excerpt()) has a number too large") }
            return (flip, value == 0 ? .auto : .pixels(value), sign + String(value))
        }
        guard let w = try side(parts[0]), let h = try side(parts[1]) else { return nil }
        (width, height) = (w.side, h.side)
        if w.flip { flip.insert(.horizontal) }
        if h.flip { flip.insert(.vertical) }
        return w.canonical + "x" + h.canonical
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

    /// A decimal of at most 9 digits after any leading zeros (so that it fits anything it is
    /// used for), or nil.
    static func number(_ text: Substring) throws(ServerError) -> Int? {
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return nil }
        let digits = text.drop { $0 == "0" }
        guard digits.count <= 9 else { return nil }
        return digits.isEmpty ? 0 : Int(digits)
    }
}

extension Character {
    /// `0` to `9`, and nothing else (not other scripts' digits).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
