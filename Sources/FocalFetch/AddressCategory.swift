/// What kind of address an IP address is, for deciding whether Focal may connect to it.
///
/// Everything but `.public` is a special-purpose range (IANA's IPv4 and IPv6 special-purpose
/// registries, RFC 6890): a fetcher that a remote user can point at a URL must not reach it,
/// because it is this machine, its network, or no real host at all.
public enum AddressCategory: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A globally routable unicast address.
    case `public`
    /// `0.0.0.0/8`, `::`: "this host" or "this network"; connecting to it reaches this machine.
    case unspecified
    /// `127.0.0.0/8`, `::1`: this machine.
    case loopback
    /// `10/8`, `172.16/12`, `192.168/16`, `fc00::/7` (unique local), `fec0::/10` (site-local).
    case `private`
    /// `100.64.0.0/10`: carrier-grade NAT, the provider's own network.
    case sharedAddressSpace = "carrier-grade NAT"
    /// `169.254.0.0/16` (cloud metadata services live at 169.254.169.254), `fe80::/10`.
    case linkLocal = "link-local"
    /// `224.0.0.0/4`, `ff00::/8`.
    case multicast
    /// `255.255.255.255`.
    case broadcast
    /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`.
    case documentation
    /// `198.18.0.0/15`, `2001:2::/48`: network benchmarking.
    case benchmarking
    /// `192.0.0.0/24`, `2001::/23` (less Teredo): addresses for IETF protocols.
    case protocolAssignment = "IETF protocol"
    /// `240.0.0.0/4`, `192.88.99.0/24`, `100::/64` (discard), the deprecated IPv4-compatible
    /// `::a.b.c.d` and the IPv4-translated `::ffff:0:a.b.c.d` (IPv6 destinations, not the IPv4
    /// they spell), and IPv6 outside `2000::/3`.
    case reserved

    /// Whether Focal refuses it unless it is allowed explicitly: every category but `.public`.
    public var isSpecialPurpose: Bool { self != .public }

    /// The category's name, e.g. "link-local".
    public var description: String { rawValue }
}

extension IPAddress {
    /// The category of the address itself, not looking inside it: an IPv4-mapped IPv6 address
    /// is `.public` here whatever it carries, an IPv4-compatible one `.reserved`. See
    /// `embeddedIPv4` and `AddressPolicy`.
    public var ownCategory: AddressCategory {
        if bytes.count == 4 {
            return Self.ipv4Ranges.first { $0.network.contains(self) }?.category ?? .public
        }
        return Self.ipv6Ranges.first { $0.network.contains(self) }?.category ?? .public
    }

    /// The category that decides whether Focal may connect: that of the address itself and of
    /// every IPv4 address it carries (see `embeddedIPv4`), the first special one winning.
    public var category: AddressCategory {
        for face in faces where face.ownCategory.isSpecialPurpose { return face.ownCategory }
        return .public
    }

    /// The addresses a connection to this one really reaches, to be judged one by one: for an
    /// IPv4-mapped address only the IPv4 address (the socket connects over IPv4); for the
    /// IPv4-compatible and -translated forms the IPv4 address, then the address itself (reserved:
    /// an IPv6 destination, so refused even when the IPv4 is public); for the rest the address
    /// itself, then every IPv4 address it carries.
    var faces: [IPAddress] {
        let carried = embeddedIPv4
        if representsIPv4 { return carried }
        if spellsIPv4 { return carried + [self] }
        return [self] + carried
    }

    /// The IPv4 addresses an IPv6 address carries, in order of likelihood; empty for IPv4 and
    /// for IPv6 addresses that carry none.
    ///
    /// - IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, IPv4-compatible
    ///   `::a.b.c.d` (but not `::` or `::1`): the last 32 bits.
    /// - NAT64 well-known prefix `64:ff9b::/96`: the last 32 bits.
    /// - NAT64 local-use prefix `64:ff9b:1::/48`: the last 32 bits; and since the operator
    ///   chooses the layout (RFC 6052 §2.2), also the IPv4 of the /48, /56 and /64 layouts
    ///   when the address fits them (bits 64-71 and the suffix zero).
    /// - 6to4 `2002::/16`: bits 16–47.
    /// - Teredo `2001::/32`: the client, the last 32 bits inverted.
    /// - ISATAP, any prefix with interface identifier `0000:5efe` or `0200:5efe`: the last 32 bits.
    public var embeddedIPv4: [IPAddress] {
        guard bytes.count == 16 else { return [] }
        let b = bytes
        func quad(_ i: Int, _ j: Int, _ k: Int, _ l: Int) -> IPAddress { IPAddress(b[i], b[j], b[k], b[l]) }
        if representsIPv4 || spellsIPv4 { return [quad(12, 13, 14, 15)] }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b {
            if b[4..<12].allSatisfy({ $0 == 0 }) { return [quad(12, 13, 14, 15)] }
            if b[4] == 0x00 && b[5] == 0x01 {
                // RFC 6052 layouts: bits 64-71 are zero, and so is the suffix after the IPv4.
                var carried = [quad(12, 13, 14, 15)]
                let zero = { (range: Range<Int>) in b[range].allSatisfy { $0 == 0 } }
                if b[8] == 0 && zero(11..<16) { carried.append(quad(6, 7, 9, 10)) }  // /48
                if b[8] == 0 && zero(12..<16) { carried.append(quad(7, 9, 10, 11)) }  // /56
                if b[8] == 0 && zero(13..<16) { carried.append(quad(9, 10, 11, 12)) }  // /64
                return carried
            }
        }
        if b[0] == 0x20 && b[1] == 0x02 { return [quad(2, 3, 4, 5)] }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00 {
            return [IPAddress(~b[12], ~b[13], ~b[14], ~b[15])]
        }
        if (b[8] == 0x00 || b[8] == 0x02) && b[9] == 0x00 && b[10] == 0x5e && b[11] == 0xfe {
            return [quad(12, 13, 14, 15)]
        }
        return []
    }

    /// Whether this is IPv4-mapped (`::ffff:a.b.c.d`): a dual-stack socket connects to the IPv4
    /// address over IPv4, so the address is that IPv4 address and nothing more.
    private var representsIPv4: Bool {
        guard bytes.count == 16 else { return false }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
    }

    /// Whether this is IPv4-translated (`::ffff:0:a.b.c.d`) or the deprecated IPv4-compatible
    /// form (`::a.b.c.d`, other than `::` and `::1`): it spells an IPv4 address, but a connection
    /// to it is an IPv6 one (`[::1.2.3.4]` reaches `::102:304`), so both count.
    private var spellsIPv4: Bool {
        guard bytes.count == 16 else { return false }
        let b = bytes
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0 { return true }  // ::ffff:0:0:0/96
        if b[0..<12].allSatisfy({ $0 == 0 }) {  // ::/96
            return !(b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1)
        }
        return false
    }

    /// IPv4 special-purpose ranges, most specific first where they overlap.
    private static let ipv4Ranges: [(network: IPNetwork, category: AddressCategory)] = [
        (v4(0, 0, 0, 0, 8), .unspecified),
        (v4(10, 0, 0, 0, 8), .private),
        (v4(100, 64, 0, 0, 10), .sharedAddressSpace),
        (v4(127, 0, 0, 0, 8), .loopback),
        (v4(169, 254, 0, 0, 16), .linkLocal),
        (v4(172, 16, 0, 0, 12), .private),
        (v4(192, 0, 0, 0, 24), .protocolAssignment),
        (v4(192, 0, 2, 0, 24), .documentation),
        (v4(192, 88, 99, 0, 24), .reserved),  // the former 6to4 relay anycast
        (v4(192, 168, 0, 0, 16), .private),
        (v4(198, 18, 0, 0, 15), .benchmarking),
        (v4(198, 51, 100, 0, 24), .documentation),
        (v4(203, 0, 113, 0, 24), .documentation),
        (v4(224, 0, 0, 0, 4), .multicast),
        (v4(255, 255, 255, 255, 32), .broadcast),
        (v4(240, 0, 0, 0, 4), .reserved),
    ]

    /// IPv6 special-purpose ranges, most specific first where they overlap. IPv4-mapped and the
    /// NAT64, 6to4 and Teredo prefixes are public here: they are judged by what they carry.
    private static let ipv6Ranges: [(network: IPNetwork, category: AddressCategory)] = [
        (v6([], 128), .unspecified),
        (v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128), .loopback),
        (v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96), .reserved),  // IPv4-compatible, deprecated
        (v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96), .public),  // IPv4-mapped: judged by its IPv4
        (v6([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0], 96), .reserved),  // IPv4-translated
        (v6([0x00, 0x64, 0xff, 0x9b], 96), .public),  // NAT64
        (v6([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48), .public),  // NAT64, local use
        (v6([0x01, 0x00], 64), .reserved),  // discard only
        (v6([0x20, 0x01, 0x00, 0x00], 32), .public),  // Teredo
        (v6([0x20, 0x01, 0x00, 0x02, 0x00, 0x00], 48), .benchmarking),
        (v6([0x20, 0x01], 23), .protocolAssignment),
        (v6([0x20, 0x01, 0x0d, 0xb8], 32), .documentation),
        (v6([0x20, 0x02], 16), .public),  // 6to4
        (v6([0x3f, 0xff], 20), .documentation),
        (v6([0xfc], 7), .private),
        (v6([0xfe, 0x80], 10), .linkLocal),
        (v6([0xfe, 0xc0], 10), .private),  // the former site-local
        (v6([0xff], 8), .multicast),
        (v6([0x20], 3), .public),  // global unicast
        (v6([], 0), .reserved),  // everything else is unassigned or reserved
    ]

    private static func v4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8, _ length: Int) -> IPNetwork {
        IPNetwork(unchecked: IPAddress(a, b, c, d), prefixLength: length)
    }

    /// An IPv6 network from its leading bytes (the rest zero).
    private static func v6(_ leading: [UInt8], _ length: Int) -> IPNetwork {
        let padded = Array(leading.prefix(16)) + Array(repeating: 0, count: max(0, 16 - leading.count))
        return IPNetwork(unchecked: IPAddress(bytes: padded) ?? IPAddress(0, 0, 0, 0), prefixLength: length)
    }
}
