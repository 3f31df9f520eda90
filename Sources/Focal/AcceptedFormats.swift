public import FocalCore
public import FocalImaging

/// The encodings a client takes besides JPEG, for the automatic format (`format(auto)`).
///
/// Read from an HTTP `Accept` header: a format counts only when the header names it explicitly
/// (`image/avif`, `image/webp`) with a quality above 0. Wildcards (`image/*`, `*/*`) do not count:
/// `fetch()` and many HTTP libraries send `*/*` whatever they can decode.
public struct AcceptedFormats: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int

    /// Creates the set from its bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// AVIF.
    public static let avif = AcceptedFormats(rawValue: 1)
    /// WebP.
    public static let webp = AcceptedFormats(rawValue: 2)

    /// The media ranges read from one header at most; the rest are ignored.
    static let mostRanges = 64

    /// The formats an `Accept` header names; empty for nil or a header naming neither.
    /// - Parameter header: The header's value, as sent (several headers joined by commas).
    public init(acceptHeader header: String?) {
        self = []
        guard let header else { return }
        for range in header.split(separator: ",", maxSplits: Self.mostRanges, omittingEmptySubsequences: true).prefix(Self.mostRanges) {
            let parts = range.split(separator: ";")
            guard let type = parts.first.map({ Self.trimmed($0).lowercased() }) else { continue }
            let format: AcceptedFormats
            switch type {
            case "image/avif": format = .avif
            case "image/webp": format = .webp
            default: continue
            }
            if Self.quality(parts.dropFirst()) > 0 { insert(format) }
        }
    }

    /// The `q` parameter among a media range's parameters: 1 when absent, 0 when unreadable.
    private static func quality(_ parameters: ArraySlice<Substring>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, trimmed(pair[0]).lowercased() == "q" else { continue }
            let text = trimmed(pair[1])
            guard text.count <= 5, let q = Double(text), q.isFinite else { return 0 }
            return q
        }
        return 1
    }

    /// The text without spaces or tabs at either end (HTTP's optional whitespace).
    private static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
    }

    /// The best of these formats for an output of `size`: AVIF, then WebP, then JPEG (each
    /// only when it holds that size).
    public func best(for size: PixelSize) -> ImageFormat {
        if contains(.avif), ImageFormat.avif.holds(size) { return .avif }
        if contains(.webp), ImageFormat.webp.holds(size) { return .webp }
        return .jpeg
    }
}
