/// The values an HTTP `Accept` or `Accept-Encoding` header takes: each listed name, lowercased,
/// whose quality (`q`) is above 0. Only the first 2 KiB and the first 64 entries are read, and
/// entries longer than 128 bytes are skipped, so a long header costs no more than a short one
/// (a browser's is about 100 bytes).
public enum HTTPAcceptList {
    /// The entries read from one header at most; the rest are ignored.
    static let mostEntries = 64
    /// The bytes read from one header at most; the rest are ignored.
    static let mostBytes = 2048
    /// The longest entry read; a longer one is skipped.
    static let longestEntry = 128

    /// The names `header` accepts (`image/webp`, `gzip`, `*/*` ...), lowercased; empty for nil.
    /// - Parameter header: The header's value, as sent (several headers joined by commas).
    public static func accepted(_ header: String?) -> Set<String> {
        guard let header else { return [] }
        var names: Set<String> = []
        var read = Substring(header)
        if header.utf8.count > mostBytes {
            // Cut after the last whole entry within the bytes read (a cut entry could lose its q=0).
            let head = String(decoding: header.utf8.prefix(mostBytes), as: UTF8.self)
            read = head.lastIndex(of: ",").map { head[..<$0] } ?? ""
        }
        for entry in read.split(separator: ",", maxSplits: mostEntries, omittingEmptySubsequences: true).prefix(mostEntries)
        where entry.utf8.count <= longestEntry {
            let parts = entry.split(separator: ";")
            guard let name = parts.first.map({ trimmed($0).lowercased() }), !name.isEmpty else { continue }
            if quality(parts.dropFirst()) > 0 { names.insert(name) }
        }
        return names
    }

    /// The `q` parameter among an entry's parameters: 1 when absent, 0 when unreadable.
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
}
