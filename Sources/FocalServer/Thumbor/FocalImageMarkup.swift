import Foundation

/// Writes the markup of an image that works with no script at all and that `<focal-img>`
/// upgrades: a `<focal-img>` around an `<img>` whose `srcset` lists smart crops of the photo at a
/// few widths, in the automatic format, with `sizes`, `width` and `height` (so the browser reserves
/// the box and its preload scanner finds the image), `loading` and `fetchpriority`. For pages a
/// Swift server renders; URLs are signed with the service's key when one is given.
///
/// ```swift
/// let images = FocalImageMarkup(server: "https://img.example", key: signingKey)
/// let html = try images.html(source: "team/2024.jpg", alt: "Our team", aspect: (16, 9), sizes: "(min-width: 60rem) 50vw, 100vw")
/// ```
public struct FocalImageMarkup: Sendable {
    /// How the browser loads the image.
    public enum Loading: String, Sendable {
        /// When it comes near the viewport (below the fold).
        case lazy
        /// At once (the page's hero).
        case eager
    }

    /// The widths of the `srcset` when none are given, in pixels.
    public static let defaultWidths = [320, 480, 640, 800, 1024, 1280, 1600, 1920]

    /// The largest width a candidate may have (the service's default `maxOutputSide`).
    static let largestWidth = 8192

    /// The service's origin, e.g. `https://img.example` (no trailing slash needed).
    public let server: String
    /// thumbor's key: URLs are signed with it; nil writes `unsafe/` URLs.
    public let key: String?
    /// The `srcset` widths, smallest first.
    public let widths: [Int]

    /// - Parameters:
    ///   - server: The service's origin.
    ///   - key: The key URLs are signed with; default none (`unsafe/`).
    ///   - widths: The `srcset` widths, 1 to 8192; default `defaultWidths` (also when none is
    ///     usable). Each is rounded down to a whole multiple of the aspect's width term, so every
    ///     candidate has exactly the aspect.
    public init(server: String, key: String? = nil, widths: [Int] = Self.defaultWidths) {
        self.server = server.hasSuffix("/") ? String(server.dropLast()) : server
        self.key = key
        let usable = widths.filter { (1...Self.largestWidth).contains($0) }.sorted()
        self.widths = usable.isEmpty ? Self.defaultWidths : usable
    }

    /// A refused source: `..`, `.`, empty segments, a backslash or a control character in a path,
    /// which a URL parser would rewrite into another URL than the one signed.
    public struct InvalidSource: Error, Sendable, CustomStringConvertible {
        /// The source as given.
        public let source: String
        public var description: String { "the image source \(source.debugDescription) has a path trick (.., ., //, \\ or a control character)" }
    }

    /// The smart-crop URL of `source` at exactly `width` x `height`.
    /// - Parameters:
    ///   - source: A path under the service's root, `id:<sha256>`, or an `http(s)` URL.
    ///   - filters: thumbor filters; default `format(auto)`.
    /// - Throws: `InvalidSource`.
    public func url(_ source: String, width: Int, height: Int, filters: [String] = ["format(auto)"]) throws(InvalidSource) -> String {
        let path = "\(width)x\(height)/smart/" + (filters.isEmpty ? "" : "filters:\(filters.joined(separator: ":"))/") + (try Self.encoded(source))
        let signature = key.map { URLSigner.signature(of: path, key: $0) } ?? "unsafe"
        return "\(server)/\(signature)/\(path)"
    }

    /// Whether `text` is an inline preview: a `data:image/(webp|jpeg|png|avif);base64,` URI of at
    /// most 4 KiB (as focal-img.js checks it).
    static func isInlinePreview(_ text: String) -> Bool {
        let prefixes = ["webp", "jpeg", "png", "avif"].map { "data:image/\($0);base64," }
        guard text.utf8.count <= 4096, let prefix = prefixes.first(where: text.hasPrefix) else { return false }
        let body = text.dropFirst(prefix.count)
        let data = body.drop { $0 != "=" }
        return !body.isEmpty && data.count <= 2 && data.allSatisfy { $0 == "=" }
            && body.prefix(body.count - data.count).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/") }
    }

    /// Whether `text` is a crop version: 16 hex digits, then `.` and a revision or nothing.
    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts[0].count == 16, parts[0].allSatisfy({ $0.isASCII && $0.isHexDigit && !$0.isUppercase }) else { return false }
        return parts.count == 1 || (!parts[1].isEmpty && parts[1].count <= 18 && parts[1].allSatisfy { $0.isASCII && $0.isNumber })
    }

    /// The markup: `<focal-img>` (with `src`, `server` and `aspect`, which the element reads)
    /// around the `<img srcset>` that shows without it.
    /// - Parameters:
    ///   - source: As `url(_:width:height:filters:)` takes it.
    ///   - alt: The image's text alternative (escaped here).
    ///   - aspect: The box's aspect, e.g. `(16, 9)`; reduced.
    ///   - sizes: The `sizes` attribute, the box's width in the layout (e.g.
    ///     `(max-width: 700px) 25vw, 169px` for a card); default `100vw`. Written as given: with
    ///     JavaScript off Chromium loads lazy images at once, and a `sizes` of `auto, …` then
    ///     costs a viewport-wide download before the box's own.
    ///   - loading: Default `.lazy`; `.eager` for the hero.
    ///   - fetchPriority: `high` for the hero, `low`, or nil (none).
    ///   - version: The crop version of this aspect (a frame's `version` in `POST /v1/plan`, or
    ///     `X-Focal-Plan`'s): every URL then carries `?v=` and is cached by browsers for a year,
    ///     and the element's own requests for a box of this aspect carry it too. Default none
    ///     (answers revalidated on every use, so a saved crop shows at once). A value that is
    ///     not a version is left out.
    ///   - preview: The frame's inline preview (`preview` of a `POST /v1/plan` frame asked with
    ///     `"previews": true`): shown under the image until it loads, and by the element as its
    ///     placeholder, with no request. Anything but a `data:image/…;base64,` URI is left out.
    /// - Throws: `InvalidSource`.
    public func html(
        source: String, alt: String, aspect: (width: Int, height: Int), sizes: String = "100vw", loading: Loading = .lazy,
        fetchPriority: String? = nil, version: String? = nil, preview: String? = nil
    ) throws(InvalidSource) -> String {
        let version = version.flatMap { Self.isVersion($0) ? $0 : nil }
        let preview = preview.flatMap { Self.isInlinePreview($0) ? $0 : nil }
        let divisor = Self.gcd(max(1, aspect.width), max(1, aspect.height))
        let (a, b) = (max(1, aspect.width) / divisor, max(1, aspect.height) / divisor)
        var candidates: [(width: Int, height: Int, url: String)] = []
        for width in widths {
            let size = Self.size(width: width, a, b)
            guard candidates.last?.width != size.width else { continue }
            let address = try url(source, width: size.width, height: size.height)
            candidates.append((size.width, size.height, version.map { address + "?v=" + $0 } ?? address))
        }
        // `src` (for browsers without srcset) and width/height: the first at least 640 wide, as
        // focal-img.js's focalImgMarkup writes it.
        guard let fallback = candidates.first(where: { $0.width >= 640 }) ?? candidates.last else { return "" }
        let srcset = candidates.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
        var img = "<img src=\"\(Self.escaped(fallback.url))\" srcset=\"\(Self.escaped(srcset))\" sizes=\"\(Self.escaped(sizes))\""
        img += " width=\"\(fallback.width)\" height=\"\(fallback.height)\" alt=\"\(Self.escaped(alt))\" loading=\"\(loading.rawValue)\" decoding=\"async\""
        if let fetchPriority { img += " fetchpriority=\"\(Self.escaped(fetchPriority))\"" }
        let background = preview.map { ";background:url(&quot;\($0)&quot;) center/cover no-repeat" } ?? ""
        img += " style=\"width:100%;height:auto;aspect-ratio:\(a)/\(b)\(background)\">"
        let versionAttribute = (version.map { " version=\"\($0)\"" } ?? "") + (preview.map { " preview=\"\($0)\"" } ?? "")
        return "<focal-img src=\"\(Self.escaped(source))\" server=\"\(Self.escaped(server))\" aspect=\"\(a):\(b)\" alt=\"\(Self.escaped(alt))\"\(loading == .eager ? " loading=\"eager\"" : "")\(versionAttribute)>"
            + img + "</focal-img>"
    }

    /// The source as the URL's last part, encoded as focal-img.js encodes it (JavaScript's
    /// `encodeURIComponent`), so that both write the same URL: an `http(s)` URL or `s3://` address whole; a path
    /// segment by segment, `:` of `id:` kept.
    static func encoded(_ source: String) throws(InvalidSource) -> String {
        guard !source.isEmpty, !source.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw InvalidSource(source: source)
        }
        let lowered = source.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("s3://") {
            return source.addingPercentEncoding(withAllowedCharacters: componentCharacters) ?? ""
        }
        let segments = source.split(separator: "/", omittingEmptySubsequences: false)
        guard !source.contains("\\"), segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw InvalidSource(source: source)
        }
        var allowed = componentCharacters
        allowed.insert(":")
        return segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }.joined(separator: "/")
    }

    /// What `encodeURIComponent` leaves as it is: ASCII letters and digits and `-_.!~*'()`.
    static let componentCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")

    /// Text safe inside a double-quoted attribute.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// A candidate about `width` wide of aspect a:b: exactly a:b when the terms are small (the
    /// width a whole multiple of `a`), else the height rounded; each side 1 to 8192.
    static func size(width: Int, _ a: Int, _ b: Int) -> (width: Int, height: Int) {
        if a <= 64, b <= 64 {
            let k = max(1, width / a)
            if k * b <= largestWidth { return (k * a, k * b) }
        }
        let height = (Double(width) * Double(b) / Double(a)).rounded()
        return (width, Int(min(Double(largestWidth), max(1, height))))
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
