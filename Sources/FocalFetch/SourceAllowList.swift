public import FocalCore
public import Foundation

/// The URLs Focal may fetch: hosts and URL prefixes. An empty list allows any URL (the
/// `AddressPolicy` still decides which addresses may be reached). Every redirect target is
/// checked as well as the URL asked for.
///
/// ```swift
/// try SourceAllowList(["images.example.com",            // that host, any scheme, port and path
///                      "*.example.org",                 // any subdomain of example.org (not example.org)
///                      "https://cdn.example.net/img/"]) // https, that host and port, paths under /img/
/// ```
public struct SourceAllowList: Hashable, Sendable, CustomStringConvertible {
    /// One entry: a host, every subdomain of a domain, or a URL prefix.
    public struct Pattern: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: Hashable, Sendable {
            case host(String)
            case subdomains(of: String)
            case prefix(scheme: String, host: String, port: Int, path: String)
        }

        private let kind: Kind
        /// The text the pattern was read from.
        public let text: String

        /// Reads a pattern:
        /// - `example.com` (or an address, `192.0.2.7`, `[2001:db8::7]`): that host exactly, any
        ///   scheme, port and path. Case and a trailing dot do not matter.
        /// - `*.example.com`: any subdomain of example.com, at any depth, but not example.com
        ///   itself (list both to allow both).
        /// - `https://cdn.example.com/img/`: URLs with that scheme, host and port (the scheme's
        ///   default when none is given) whose path lies under that prefix. A prefix ending in
        ///   `/` is a folder; one without matches that path and the folder of that name
        ///   (`/img` matches `/img` and `/img/a.jpg`, not `/images`). Paths are compared as
        ///   written (`/img%2Fa.jpg` is not under `/img/`), case-sensitively, and a path with
        ///   `.` or `..` segments, escaped or not, never matches a prefix.
        /// - Throws: `SettingError` saying what is expected.
        public init(_ text: String) throws(SettingError) {
            self.text = text
            if text.contains("://") {
                kind = try Self.prefix(text)
            } else if text.hasPrefix("*.") {
                guard let domain = SourceAllowList.normalizedHost(String(text.dropFirst(2))),
                    IPAddress(host: domain) == nil, Self.isHostName(domain)
                else {
                    throw SettingError(value: text, reason: "is not a valid subdomain pattern: write e.g. *.example.com")
                }
                kind = .subdomains(of: domain)
            } else {
                guard let host = SourceAllowList.normalizedHost(text), IPAddress(host: host) != nil || Self.isHostName(host) else {
                    throw SettingError(
                        value: text, reason: "is not a host or URL prefix: write e.g. example.com, *.example.com or https://cdn.example.com/img/")
                }
                kind = .host(host)
            }
        }

        /// Whether `url` matches this pattern.
        public func matches(_ url: URL) -> Bool {
            guard let host = url.host.flatMap(SourceAllowList.normalizedHost) else { return false }
            switch kind {
            case let .host(allowed):
                return host == allowed
            case let .subdomains(domain):
                return IPAddress(host: host) == nil && host.hasSuffix("." + domain)
            case let .prefix(scheme, allowedHost, port, path):
                guard url.scheme?.lowercased() == scheme, host == allowedHost,
                    SourceAllowList.effectivePort(of: url) == port,
                    let urlPath = SourceAllowList.comparablePath(of: url)
                else { return false }
                return path.hasSuffix("/") ? urlPath.hasPrefix(path) : (urlPath == path || urlPath.hasPrefix(path + "/"))
            }
        }

        public var description: String { text }

        private static func prefix(_ text: String) throws(SettingError) -> Kind {
            let expected = "is not a URL prefix: write e.g. https://cdn.example.com/img/"
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = url.host.flatMap(SourceAllowList.normalizedHost), IPAddress(host: host) != nil || isHostName(host),
                let port = SourceAllowList.effectivePort(of: url)
            else { throw SettingError(value: text, reason: expected) }
            guard url.user == nil, url.password == nil, url.query == nil, url.fragment == nil else {
                throw SettingError(value: text, reason: "has a user, query or fragment; a prefix is a scheme, host, port and path")
            }
            guard let path = SourceAllowList.comparablePath(of: url) else {
                throw SettingError(value: text, reason: "has a path with . or .. segments or bad escapes; write the path plainly")
            }
            return .prefix(scheme: scheme, host: host, port: port, path: path)
        }

        /// Letters, digits, `-`, `_` and dots between non-empty labels.
        private static func isHostName(_ host: String) -> Bool {
            host.utf8.count <= 253
                && host.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
                    !label.isEmpty && label.count <= 63
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
                }
        }
    }

    /// The entries; a URL is allowed when one matches.
    public var patterns: [Pattern]

    /// Whether there are no entries, so that every URL is allowed.
    public var isEmpty: Bool { patterns.isEmpty }

    /// An empty list: every URL is allowed.
    public init() { patterns = [] }

    /// A list of these patterns.
    public init(patterns: [Pattern]) { self.patterns = patterns }

    /// Reads each text as a `Pattern`.
    /// - Throws: `SettingError` for the first text that is not a pattern.
    public init(_ texts: [String]) throws(SettingError) {
        var patterns: [Pattern] = []
        for text in texts { patterns.append(try Pattern(text)) }
        self.patterns = patterns
    }

    /// Whether Focal may fetch `url`: the list is empty or one of its patterns matches.
    public func allows(_ url: URL) -> Bool {
        patterns.isEmpty || patterns.contains { $0.matches(url) }
    }

    /// The patterns, separated by commas.
    public var description: String { patterns.map(\.text).joined(separator: ", ") }

    // MARK: - Comparing URLs

    /// The host as compared: lower case, without brackets or one trailing dot, and an address
    /// in its standard text (so `127.1` and `127.0.0.1` are the same host). Nil when empty.
    static func normalizedHost(_ host: String) -> String? {
        var text = Substring(host.lowercased())
        if text.hasPrefix("[") && text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if text.hasSuffix(".") { text = text.dropLast() }
        guard !text.isEmpty else { return nil }
        return IPAddress(host: String(text))?.description ?? String(text)
    }

    /// The URL's port, or its scheme's default; nil when outside 1...65535 or unknown.
    static func effectivePort(of url: URL) -> Int? {
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return (1...65535).contains(port) ? port : nil
    }

    /// The path as compared: as the URL writes it, percent escapes in upper case, `/` when
    /// empty. Nil when it does not decode, or when decoded it has a `.` or `..` segment (also
    /// written `%2e`, or set apart by an escaped slash or a backslash), which a server may resolve to
    /// a place outside the prefix.
    static func comparablePath(of url: URL) -> String? {
        guard let encoded = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath,
            let decoded = encoded.removingPercentEncoding
        else { return nil }
        let segments = decoded.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        guard !encoded.isEmpty else { return "/" }
        // Upper-case the two hex digits of every escape, so %2f and %2F compare equal.
        var result = ""
        var pending = 0
        for character in encoded {
            if pending > 0 {
                result.append(character.uppercased())
                pending -= 1
            } else {
                result.append(character)
                if character == "%" { pending = 2 }
            }
        }
        return result
    }
}
