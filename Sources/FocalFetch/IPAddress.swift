/// An IPv4 or IPv6 address, parsed from text without trusting it.
///
/// `IPAddress("192.0.2.1")` and `IPAddress("2001:db8::1")` read the standard forms (dotted quad;
/// RFC 4291 text with `::` and an optional dotted-quad tail); anything else gives nil, never a
/// trap. `IPAddress(host:)` also reads what a URL's host may hold: brackets around IPv6, a zone
/// (`[fe80::1%25eth0]`, `fe80::1%eth0`), and the shorthand IPv4 forms resolvers accept (`127.1`,
/// `0x7f.0.0.1`, `2130706433`).
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// IPv4 or IPv6.
    public enum Family: Hashable, Sendable {
        case ipv4
        case ipv6
    }

    /// The address's bytes in network order: 4 for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// The zone of a scoped IPv6 address (`eth0`, `2`: the interface it leaves by), or nil.
    /// Only `IPAddress(host:)` and the resolver set it; `AddressPolicy` refuses zoned addresses
    /// whenever it refuses special-purpose ones, since a zone picks an interface of this machine.
    public let zone: String?

    /// IPv4 when `bytes` has 4 bytes, else IPv6.
    public var family: Family { bytes.count == 4 ? .ipv4 : .ipv6 }

    /// An IPv4 address from its four bytes.
    public init(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        bytes = [a, b, c, d]
        zone = nil
    }

    /// An address from 4 (IPv4) or 16 (IPv6) bytes in network order; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
        zone = nil
    }

    /// An IPv6 address from its 16 bytes and a zone (see `zone`); nil for any other count, or for
    /// a zone that is empty, longer than 32 characters, or not printable ASCII without spaces.
    public init?(bytes: [UInt8], zone: String?) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        if let zone {
            guard bytes.count == 16, Self.isValidZone(Substring(zone)) else { return nil }
        }
        self.bytes = bytes
        self.zone = zone
    }

    /// The same address without its zone.
    public var unzoned: IPAddress { IPAddress(bytes: bytes, zone: nil) ?? self }

    /// Parses the standard text of an IPv4 (`a.b.c.d`, decimal, no leading zeros) or IPv6 address
    /// (no brackets, no zone); nil for anything else.
    public init?(_ text: String) {
        // The longest valid text is 45 characters (`ffff:...:ffff:255.255.255.255`).
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if text.contains(":") {
            guard let bytes = Self.parseIPv6(Substring(text)) else { return nil }
            self.bytes = bytes
        } else {
            guard let bytes = Self.parseDottedQuad(Substring(text)) else { return nil }
            self.bytes = bytes
        }
        zone = nil
    }

    /// Parses a URL's host when it is an address literal: `[v6]` or `v6`, either with a zone, a
    /// dotted quad, or the shorthand IPv4 forms (`127.1`, `0x7f000001`, `017700000001`) that
    /// `inet_aton` and browsers read. Nil when the host is a name (or not valid at all).
    ///
    /// A zone follows `%`. In brackets, the URL's own text, the `%` is written `%25` (RFC 6874;
    /// `[fe80::1%25eth0]`; `[fe80::1%251]` is zone `1`), and a bare `%` is read too; without
    /// brackets the host is taken as already decoded, as `URL.host` gives it (`fe80::1%eth0`;
    /// `fe80::1%251` is zone `251`). An empty zone is no address.
    public init?(host: String) {
        guard !host.isEmpty, host.utf8.count <= 96 else { return nil }
        var text = Substring(host)
        var bracketed = false
        if text.hasPrefix("[") && text.hasSuffix("]") {
            text = text.dropFirst().dropLast()
            bracketed = true
        }
        if text.contains(":") {
            var zone: Substring?
            if let percent = text.firstIndex(of: "%") {
                var rest = text[text.index(after: percent)...]
                if bracketed && rest.hasPrefix("25") { rest = rest.dropFirst(2) }
                guard Self.isValidZone(rest) else { return nil }
                zone = rest
                text = text[..<percent]
            }
            guard text.utf8.count <= 45, let bytes = Self.parseIPv6(text) else { return nil }
            self.bytes = bytes
            self.zone = zone.map(String.init)
        } else {
            guard text.utf8.count <= 64, let bytes = Self.parseShorthandIPv4(text) else { return nil }
            self.bytes = bytes
            zone = nil
        }
    }

    /// The standard text: dotted quad, or RFC 5952 IPv6 (lower case, the longest run of zero
    /// groups as `::`, IPv4-mapped addresses as `::ffff:a.b.c.d`), then `%zone` if it has one.
    public var description: String {
        zone.map { unzonedText + "%" + $0 } ?? unzonedText
    }

    /// `description` without the zone.
    private var unzonedText: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return "::ffff:" + bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        // The longest run of two or more zero groups, the first one on a tie.
        var best: Range<Int>?
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index >= 2 && (best.map { end - index > $0.count } ?? true) { best = index..<end }
            index = end
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let run = best else { return hex.joined(separator: ":") }
        return hex[..<run.lowerBound].joined(separator: ":") + "::" + hex[run.upperBound...].joined(separator: ":")
    }

    // MARK: - Parsing

    /// A zone: 1 to 32 printable ASCII characters, no space and no `%`.
    private static func isValidZone(_ zone: Substring) -> Bool {
        (1...32).contains(zone.unicodeScalars.count) && zone.unicodeScalars.allSatisfy { (0x21...0x7e).contains($0.value) && $0 != "%" }
    }

    /// `a.b.c.d`: four decimal numbers 0...255 without leading zeros.
    static func parseDottedQuad(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit) else { return nil }
            guard part.count == 1 || part.first != "0" else { return nil }
            guard let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// The IPv4 forms `inet_aton` and the WHATWG URL standard read: one to four parts, each
    /// decimal, octal (leading `0`) or hexadecimal (`0x`), the last filling the bytes left. An
    /// empty last part (a trailing dot) is ignored.
    static func parseShorthandIPv4(_ text: Substring) -> [UInt8]? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = parseNumber(part) else { return nil }
            values.append(value)
        }
        let last = values.removeLast()
        guard values.allSatisfy({ $0 <= 255 }) else { return nil }
        let lastBytes = 4 - values.count
        guard last < (UInt64(1) << (8 * UInt64(lastBytes))) else { return nil }
        var bytes = values.map { UInt8($0) }
        for shift in stride(from: lastBytes - 1, through: 0, by: -1) {
            bytes.append(UInt8(truncatingIfNeeded: last >> (8 * UInt64(shift))))
        }
        return bytes
    }

    /// A decimal, octal (`0` prefix) or hexadecimal (`0x` prefix) number of at most 32 bits.
    private static func parseNumber(_ part: Substring) -> UInt64? {
        guard !part.isEmpty, part.count <= 34 else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            radix = 16
            if digits.isEmpty { return 0 }
        } else if digits.count > 1 && digits.hasPrefix("0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for character in digits {
            guard character.isASCIIHexDigit, let digit = character.hexDigitValue, UInt64(digit) < radix else { return nil }
            value = value * radix + UInt64(digit)
            guard value <= UInt64(UInt32.max) else { return nil }
        }
        return value
    }

    /// RFC 4291 text: eight groups of one to four hex digits, at most one `::` standing for one
    /// or more zero groups, and optionally a dotted quad in place of the last two groups.
    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        let compressed = halves.count == 2
        guard let head = groups(of: halves[0], mayEndInIPv4: !compressed) else { return nil }
        var tail: [UInt16] = []
        if compressed {
            guard let parsed = groups(of: halves[1], mayEndInIPv4: true) else { return nil }
            tail = parsed
        }
        let count = head.count + tail.count
        if compressed {
            guard count <= 7 else { return nil }
        } else {
            guard count == 8 else { return nil }
        }
        let all = head + Array(repeating: 0, count: 8 - count) + tail
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }

    /// The groups of one side of `::` (empty text: none); a dotted quad at the end counts as two.
    private static func groups(of text: Substring, mayEndInIPv4: Bool) -> [UInt16]? {
        guard !text.isEmpty else { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var groups: [UInt16] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1 && mayEndInIPv4 && part.contains(".") {
                guard let quad = parseDottedQuad(part) else { return nil }
                groups.append(UInt16(quad[0]) << 8 | UInt16(quad[1]))
                groups.append(UInt16(quad[2]) << 8 | UInt16(quad[3]))
                continue
            }
            guard (1...4).contains(part.count), part.allSatisfy(\.isASCIIHexDigit) else { return nil }
            guard let value = UInt16(part, radix: 16) else { return nil }
            groups.append(value)
        }
        return groups
    }
}

extension Character {
    /// Whether this is one of `0`...`9` (not any Unicode digit).
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }

    /// Whether this is one of `0`...`9`, `a`...`f`, `A`...`F` (not their full-width forms).
    fileprivate var isASCIIHexDigit: Bool { isASCII && isHexDigit }
}
