import FocalCore
import FocalFetch
import Testing

/// The SSRF guard's address side, without a network: parsing addresses and networks, the
/// special-purpose ranges and their boundaries, IPv4 carried inside IPv6, and the policy.
@Suite("Addresses: parsing, classification and the address policy")
struct AddressPolicyTests {
    static func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text), "\(text) does not parse")
    }

    // MARK: - Parsing

    @Test("standard address text parses and prints in its standard form", arguments: [
        ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"), ("192.0.2.1", "192.0.2.1"),
        ("::", "::"), ("::1", "::1"), ("1::", "1::"), ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:db8::0:1", "2001:db8::1"), ("1:0:0:1:0:0:0:1", "1:0:0:1::1"), ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8"),
        ("::ffff:127.0.0.1", "::ffff:127.0.0.1"), ("::ffff:7f00:1", "::ffff:127.0.0.1"),
        ("::127.0.0.1", "::7f00:1"), ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"), ("fe80::1", "fe80::1"),
    ])
    func parses(text: String, printed: String) throws {
        let address = try Self.address(text)
        #expect(address.description == printed)
        #expect(IPAddress(printed) == address, "the printed form reads back")
    }

    @Test("malformed address text gives nil, never a trap", arguments: [
        "", " ", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "01.2.3.4", "1.2.3.-4", "1.2.3.+4", "1..2.3",
        "1.2.3.4 ", " 1.2.3.4", "１.2.3.4", "0x7f.0.0.1", "127.1", "2130706433",
        ":", ":::", "::1::", "1::2::3", ":1::", "1::2:", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7::8",
        "12345::", "g::", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "1.2.3.4::", "::1.2.3.4:5", "fe80::1%eth0", "[::1]",
        "::ffff:１.2.3.4", "１::", String(repeating: "1", count: 100), String(repeating: ":", count: 40),
        String(repeating: "1:", count: 30) + "1",
    ])
    func malformed(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test("a URL's host reads as an address in every form a resolver accepts", arguments: [
        ("127.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"), ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"), ("0x7f.0.0.1", "127.0.0.1"), ("0177.0.0.01", "127.0.0.1"),
        ("017700000001", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"), ("0", "0.0.0.0"), ("0x", "0.0.0.0"),
        ("169.254.43518", "169.254.169.254"), ("[::1]", "::1"), ("::ffff:127.0.0.1", "::ffff:127.0.0.1"),
        ("[::ffff:7f00:1]", "::ffff:127.0.0.1"), ("10.1.65535", "10.1.255.255"),
    ])
    func hostForms(host: String, address: String) throws {
        #expect(IPAddress(host: host)?.description == address)
    }

    @Test("a host name, or a number out of range, is not an address", arguments: [
        "localhost", "example.com", "1.2.3.4.5", "4294967296", "256.0.0.1", "1.256.0.1", "1.2.65536", "0x1g",
        "08.0.0.1", "1..2", ".", "", "[", "[]", "[::1", "deadbeef", "1e3", "0xffffffffff", String(repeating: "9", count: 80),
        // Zones: empty, with a space or another percent sign, too long, or on IPv4.
        "fe80::1%", "[fe80::1%]", "[fe80::1%25]", "fe80::1%a b", "fe80::1%a%b", "fe80::1%" + String(repeating: "a", count: 33),
        "127.0.0.1%1", "[127.0.0.1%251]", "fe80::1%\u{0}", "fe80::1%é",
    ])
    func notAnAddress(host: String) {
        #expect(IPAddress(host: host) == nil)
    }

    @Test("a URL's host with a zone is an address with that zone, in brackets with %25 or %, or decoded", arguments: [
        ("[fe80::1%25eth0]", "fe80::1%eth0"), ("[fe80::1%eth0]", "fe80::1%eth0"), ("fe80::1%eth0", "fe80::1%eth0"),
        ("[fe80::1%25lo]", "fe80::1%lo"), ("fe80::1%lo", "fe80::1%lo"), ("[::ffff:7f00:1%251]", "::ffff:127.0.0.1%1"),
        ("::ffff:7f00:1%1", "::ffff:127.0.0.1%1"), ("fe80::1%251", "fe80::1%251"), ("[::1%25lo]", "::1%lo"),
        ("[2606:4700::1%25eth0]", "2606:4700::1%eth0"),
    ])
    func zonedHosts(host: String, printed: String) throws {
        let address = try #require(IPAddress(host: host), "\(host) is not read as an address")
        #expect(address.description == printed)
        #expect(address.zone != nil)
        #expect(address.unzoned.zone == nil)
        #expect(address != address.unzoned, "the zone is part of the address")
    }

    // MARK: - Categories

    @Test("IPv4 special ranges and their boundaries", arguments: [
        ("0.0.0.0", AddressCategory.unspecified), ("0.255.255.255", .unspecified), ("1.0.0.0", .public),
        ("9.255.255.255", .public), ("10.0.0.0", .private), ("10.255.255.255", .private), ("11.0.0.0", .public),
        ("100.63.255.255", .public), ("100.64.0.0", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
        ("100.128.0.0", .public), ("126.255.255.255", .public), ("127.0.0.0", .loopback), ("127.0.0.1", .loopback),
        ("127.255.255.255", .loopback), ("128.0.0.0", .public), ("169.253.255.255", .public),
        ("169.254.0.0", .linkLocal), ("169.254.169.254", .linkLocal), ("169.254.255.255", .linkLocal),
        ("169.255.0.0", .public), ("172.15.255.255", .public), ("172.16.0.0", .private), ("172.31.255.255", .private),
        ("172.32.0.0", .public), ("191.255.255.255", .public), ("192.0.0.0", .protocolAssignment),
        ("192.0.0.255", .protocolAssignment), ("192.0.1.0", .public), ("192.0.2.0", .documentation),
        ("192.0.2.255", .documentation), ("192.0.3.0", .public), ("192.88.99.1", .reserved),
        ("192.167.255.255", .public), ("192.168.0.0", .private), ("192.168.255.255", .private),
        ("192.169.0.0", .public), ("198.17.255.255", .public), ("198.18.0.0", .benchmarking),
        ("198.19.255.255", .benchmarking), ("198.20.0.0", .public), ("198.51.100.7", .documentation),
        ("203.0.113.7", .documentation), ("223.255.255.255", .public), ("224.0.0.0", .multicast),
        ("239.255.255.255", .multicast), ("240.0.0.0", .reserved), ("255.255.255.254", .reserved),
        ("255.255.255.255", .broadcast), ("8.8.8.8", .public), ("93.184.216.34", .public),
    ])
    func ipv4(text: String, category: AddressCategory) throws {
        let address = try Self.address(text)
        #expect(address.category == category)
        #expect(address.ownCategory == category)
        #expect(address.embeddedIPv4.isEmpty)
    }

    @Test("IPv6 special ranges and their boundaries", arguments: [
        ("::", AddressCategory.unspecified), ("::1", .loopback), ("::2", .unspecified),
        ("2606:4700::1111", .public), ("2001:4860:4860::8888", .public), ("2000::", .public),
        ("3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", .documentation), ("3fff:1000::", .public), ("3ffe::1", .public), ("4000::1", .reserved),
        ("1fff:ffff::", .reserved), ("100::1", .reserved), ("100:0:0:1::", .reserved),
        ("fbff:ffff::1", .reserved), ("fc00::", .private), ("fdff:ffff::1", .private), ("fe7f::1", .reserved),
        ("fe80::", .linkLocal), ("febf:ffff::1", .linkLocal), ("fec0::1", .private), ("feff::1", .private),
        ("ff00::", .multicast), ("ff02::1", .multicast), ("2001:db8::1", .documentation), ("2001:db9::1", .public),
        ("3fff::1", .documentation), ("2001:2::1", .benchmarking), ("2001:10::1", .protocolAssignment),
        ("2001:1ff::1", .protocolAssignment), ("2001:200::1", .public),
    ])
    func ipv6(text: String, category: AddressCategory) throws {
        #expect(try Self.address(text).category == category)
    }

    @Test("IPv4 inside IPv6 is judged as IPv4, in every embedding", arguments: [
        // IPv4-mapped, -translated and -compatible
        ("::ffff:127.0.0.1", "127.0.0.1", AddressCategory.loopback), ("::ffff:7f00:1", "127.0.0.1", .loopback),
        ("::ffff:10.0.0.1", "10.0.0.1", .private), ("::ffff:169.254.169.254", "169.254.169.254", .linkLocal),
        ("::ffff:8.8.8.8", "8.8.8.8", .public), ("::ffff:0:10.0.0.1", "10.0.0.1", .private),
        ("::ffff:0:8.8.8.8", "8.8.8.8", .reserved), ("::127.0.0.1", "127.0.0.1", .loopback),
        ("::10.0.0.1", "10.0.0.1", .private), ("::8.8.8.8", "8.8.8.8", .reserved), ("::1.2.3.4", "1.2.3.4", .reserved),
        // NAT64, well-known and local-use prefixes
        ("64:ff9b::169.254.169.254", "169.254.169.254", .linkLocal), ("64:ff9b::7f00:1", "127.0.0.1", .loopback),
        ("64:ff9b::8.8.8.8", "8.8.8.8", .public), ("64:ff9b:1::a9fe:a9fe", "169.254.169.254", .linkLocal),
        ("64:ff9b:1::808:808", "8.8.8.8", .public),
        // 6to4: bytes 2-5
        ("2002:7f00:1::", "127.0.0.1", .loopback), ("2002:a9fe:a9fe::1", "169.254.169.254", .linkLocal),
        ("2002:c0a8:101::", "192.168.1.1", .private), ("2002:808:808::1", "8.8.8.8", .public),
        ("2002:6440:1::", "100.64.0.1", .sharedAddressSpace),
        // Teredo: the client is the last 32 bits inverted
        ("2001::80ff:fffe", "127.0.0.1", .loopback), ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45", .documentation),
        ("2001::f5ff:fffe", "10.0.0.1", .private), ("2001::f7f7:f7f7", "8.8.8.8", .public),
        // ISATAP interface identifiers
        ("2001:4860::5efe:a00:1", "10.0.0.1", .private), ("2001:4860::200:5efe:a9fe:a9fe", "169.254.169.254", .linkLocal),
        ("2001:4860::5efe:808:808", "8.8.8.8", .public),
    ])
    func embedded(text: String, carried: String, category: AddressCategory) throws {
        let address = try Self.address(text)
        #expect(address.embeddedIPv4.first == (try Self.address(carried)))
        #expect(address.category == category)
        #expect(AddressPolicy.publicOnly.allows(address) == (category == .public))
    }

    @Test("NAT64 local-use addresses are judged in every RFC 6052 layout they fit")
    func localUseNAT64() throws {
        // 169.254.169.254 in the /48 layout: bytes 6, 7, 9, 10; byte 8 and the suffix zero.
        let metadata = try Self.address("64:ff9b:1:a9fe:a9:fe00::")
        #expect(metadata.embeddedIPv4.contains(try Self.address("169.254.169.254")))
        #expect(!AddressPolicy.publicOnly.allows(metadata))
        // 10.1.2.3 in the /64 layout: bytes 9-12; its last 32 bits alone would read 3.0.0.0.
        let tucked = try Self.address("64:ff9b:1:0:a:102:300:0")
        #expect(tucked.embeddedIPv4.contains(try Self.address("10.1.2.3")))
        #expect(tucked.category == .private)
        // A public IPv4 in the /96 layout fits no other layout and is allowed.
        #expect(try Self.address("64:ff9b:1::808:808").embeddedIPv4 == [try Self.address("8.8.8.8")])
    }

    @Test("the special ranges' own names and the public category")
    func categoryNames() {
        #expect(AddressCategory.allCases.filter { !$0.isSpecialPurpose } == [.public])
        #expect(AddressCategory.linkLocal.description == "link-local")
    }

    // MARK: - Networks

    @Test("networks parse, clear their host bits and hold only their own family")
    func networks() throws {
        let ten = try IPNetwork("10.0.0.0/8")
        #expect(ten.contains(try Self.address("10.255.255.255")))
        #expect(!ten.contains(try Self.address("11.0.0.0")))
        #expect(!ten.contains(try Self.address("9.255.255.255")))
        #expect(!ten.contains(try Self.address("::ffff:10.0.0.1")), "an IPv4 network holds no IPv6 address")
        #expect(try IPNetwork("192.168.1.7/24").description == "192.168.1.0/24")
        #expect(try IPNetwork("172.16.0.0/12").contains(try Self.address("172.31.255.255")))
        #expect(try !IPNetwork("172.16.0.0/12").contains(try Self.address("172.32.0.0")))
        #expect(try IPNetwork("127.0.0.1").description == "127.0.0.1/32")
        #expect(IPNetwork(try Self.address("::1")).description == "::1/128")
        #expect(try IPNetwork("fe80::/10").contains(try Self.address("febf::1")))
        #expect(try !IPNetwork("fe80::/10").contains(try Self.address("fec0::1")))
        #expect(try IPNetwork("0.0.0.0/0").contains(try Self.address("203.0.113.1")))
        #expect(try IPNetwork("::/0").contains(try Self.address("2001:db8::1")))
        #expect(try IPNetwork("10.1.2.3/31").description == "10.1.2.2/31")
    }

    @Test("malformed networks throw a SettingError naming the text", arguments: [
        "", "x", "10.0.0.0/", "/8", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8",
        "10.0.0.0/ 8", "10.0.0.0/0x8", "10.0.0.0/1000", "10.0.0/8", "example.com/8",
    ])
    func malformedNetwork(text: String) {
        let error = #expect(throws: SettingError.self) { try IPNetwork(text) }
        #expect(error?.code == .requestInvalid)
        #expect(error?.value == text)
    }

    // MARK: - Policy

    @Test("the default policy refuses loopback in every spelling; an allowed network lets it through")
    func allowing() throws {
        let loopback = try Self.address("127.0.0.1"), mapped = try Self.address("::ffff:127.0.0.1")
        let other = try Self.address("127.0.0.2"), ten = try Self.address("10.0.0.1"), google = try Self.address("8.8.8.8")
        #expect(NetworkSettings().addressPolicy == .publicOnly)
        for address in [loopback, mapped, other, ten, try Self.address("::1"), try Self.address("2002:7f00:1::")] {
            #expect(!AddressPolicy.publicOnly.allows(address), "\(address)")
            #expect(AddressPolicy.allowAll.allows(address), "\(address)")
        }
        #expect(AddressPolicy.publicOnly.allows(google))

        let policy = try AddressPolicy(allowing: ["127.0.0.1"])
        #expect(policy.allows(loopback))
        #expect(policy.allows(mapped), "an allowed IPv4 network allows that address inside IPv6 too")
        #expect(!policy.allows(other))
        #expect(!policy.allows(ten))
        #expect(policy.allows(google))
        #expect(try AddressPolicy(allowing: ["127.0.0.0/8", "10.0.0.0/8"]).allows(ten))
        #expect(throws: SettingError.self) { try AddressPolicy(allowing: ["127.0.0.1/40"]) }
    }

    @Test("denied networks are refused whatever else allows, also inside IPv6")
    func denying() throws {
        let policy = try AddressPolicy(allowing: ["203.0.113.0/24"], denying: ["8.8.8.0/24", "203.0.113.9"])
        #expect(!policy.allows(try Self.address("8.8.8.8")))
        #expect(!policy.allows(try Self.address("::ffff:8.8.8.8")))
        #expect(!policy.allows(try Self.address("2002:808:808::1")))
        #expect(policy.allows(try Self.address("8.8.4.4")))
        #expect(policy.allows(try Self.address("203.0.113.8")))
        #expect(!policy.allows(try Self.address("203.0.113.9")), "denied wins over allowed")
        var open = AddressPolicy.allowAll
        open.deniedNetworks = [try IPNetwork("169.254.0.0/16")]
        #expect(!open.allows(try Self.address("169.254.169.254")))
        #expect(open.allows(try Self.address("127.0.0.1")))
    }

    @Test("a refusal says which address, what it carries and why")
    func refusalWords() throws {
        let policy = try AddressPolicy(allowing: [], denying: ["198.51.100.0/24"])
        #expect(policy.refusal(for: try Self.address("127.0.0.1"))?.description == "127.0.0.1 is a loopback address")
        #expect(policy.refusal(for: try Self.address("169.254.169.254"))?.description == "169.254.169.254 is a link-local address")
        #expect(policy.refusal(for: try Self.address("::ffff:10.0.0.1"))?.description == "::ffff:10.0.0.1 carries 10.0.0.1, which is a private address")
        #expect(policy.refusal(for: try Self.address("100.64.0.1"))?.description == "100.64.0.1 is a carrier-grade NAT address")
        #expect(policy.refusal(for: try Self.address("198.51.100.1"))?.description == "198.51.100.1 is in the denied network 198.51.100.0/24")
        let refusal = try #require(policy.refusal(for: try Self.address("2002:7f00:1::")))
        #expect(refusal.refused == (try Self.address("127.0.0.1")))
        #expect(refusal.reason == .category(.loopback))
        #expect(policy.refusal(for: try Self.address("8.8.8.8")) == nil)
    }

    @Test("IPv4-compatible and -translated addresses are IPv6 destinations: refused by default even when their IPv4 is public")
    func ipv4Compatible() throws {
        let compatible = try #require(IPAddress(host: "[::1.2.3.4]"))
        #expect(compatible.description == "::102:304", "the address connected is IPv6, not 1.2.3.4")
        let refusal = try #require(AddressPolicy.publicOnly.refusal(for: compatible))
        #expect(refusal.reason == .category(.reserved))
        #expect(refusal.refused == compatible)
        #expect(try AddressPolicy(allowing: ["1.2.3.4"]).refusal(for: compatible) != nil, "allowing the IPv4 does not allow this IPv6 spelling")
        #expect(AddressPolicy.publicOnly.refusal(for: try Self.address("::ffff:0:1.2.3.4"))?.reason == .category(.reserved))
        // A special IPv4 inside is named first, as for the other embeddings.
        #expect(AddressPolicy.publicOnly.refusal(for: try Self.address("::127.0.0.1"))?.description == "::7f00:1 carries 127.0.0.1, which is a loopback address")
        // IPv4-mapped is the IPv4 address itself.
        #expect(AddressPolicy.publicOnly.allows(try Self.address("::ffff:1.2.3.4")))
        #expect(try AddressPolicy(allowing: ["127.0.0.1"]).allows(try Self.address("::ffff:127.0.0.1")))
    }

    @Test("an address with a zone is refused whenever special-purpose addresses are, whatever is allowed")
    func zonesRefused() throws {
        let linkLocal = try #require(IPAddress(host: "[fe80::1%25lo]"))
        #expect(AddressPolicy.publicOnly.refusal(for: linkLocal)?.description == "fe80::1%lo is a link-local address")
        #expect(try AddressPolicy(allowing: ["fe80::/10"]).refusal(for: linkLocal) != nil, "an allowed network does not allow a zone")
        #expect(AddressPolicy.publicOnly.allows(linkLocal.unzoned) == false)
        #expect(try AddressPolicy(allowing: ["fe80::/10"]).allows(linkLocal.unzoned), "the same address without its zone is allowed")

        let mapped = try #require(IPAddress(host: "[::ffff:7f00:1%251]"))
        #expect(
            try AddressPolicy(allowing: ["127.0.0.1"]).refusal(for: mapped)?.description
                == "::ffff:127.0.0.1%1 carries 127.0.0.1, which is a loopback address")
        let loopback = try #require(IPAddress(host: "[::1%25lo]"))
        #expect(try AddressPolicy(allowing: ["::1"]).refusal(for: loopback)?.reason == .category(.loopback))

        let publicZoned = try #require(IPAddress(host: "[2606:4700::1%25eth0]"))
        let refusal = try #require(AddressPolicy.publicOnly.refusal(for: publicZoned))
        #expect(refusal.reason == .zoned)
        #expect(refusal.description == "2606:4700::1%eth0 is an address with a zone, which picks a network interface of this machine")
        #expect(AddressPolicy.allowAll.allows(publicZoned), "allowAll allows any address")
    }

    @Test("the public message of an address refusal names no address")
    func publicMessage() {
        let error = FetchError(.fetchAddressRefused, url: "http://127.0.0.1:8080/a.jpg", "127.0.0.1 is a loopback address")
        #expect(!error.publicMessage.contains("127.0.0.1"))
        #expect(error.description.contains("127.0.0.1"))
        #expect(FetchError(.fetchNotAllowed, url: "http://internal/a.jpg", "not allowed").publicMessage.contains("internal") == false)
    }
}
