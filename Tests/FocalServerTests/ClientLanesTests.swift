import FocalFetch
import Testing

@testable import FocalServer

/// Which client a request is done for (`ClientLanes`): the peer, or behind a trusted proxy the
/// nearest address `X-Forwarded-For` names that is not a trusted proxy; IPv6 by its /64.
@Suite struct ClientLanesTests {
    static let loopback = ServerConfiguration.loopback

    static func lane(_ peer: String, _ forwarded: [String] = [], trusted: [IPNetwork] = loopback) -> String? {
        ClientLanes.lane(peer: IPAddress(peer), forwardedFor: forwarded, trustedProxies: trusted)
    }

    @Test func aDirectClientIsItsAddress() {
        #expect(Self.lane("192.0.2.7") == "192.0.2.7")
        // Not a trusted proxy: what it says of others is not believed.
        #expect(Self.lane("192.0.2.7", ["198.51.100.1"]) == "192.0.2.7")
        #expect(ClientLanes.lane(peer: nil, forwardedFor: [], trustedProxies: Self.loopback) == nil)
    }

    @Test func behindATrustedProxyTheForwardedClientCounts() throws {
        #expect(Self.lane("127.0.0.1", ["198.51.100.1"]) == "198.51.100.1")
        // The client's own entries come first; the proxy appended the one it saw last.
        #expect(Self.lane("127.0.0.1", ["203.0.113.9, 198.51.100.1"]) == "198.51.100.1")
        #expect(Self.lane("127.0.0.1", ["203.0.113.9", "198.51.100.1"]) == "198.51.100.1")
        // A chain of trusted proxies is walked through.
        let trusted = Self.loopback + [try IPNetwork("10.0.0.0/8")]
        #expect(Self.lane("127.0.0.1", ["198.51.100.1, 10.1.2.3"], trusted: trusted) == "198.51.100.1")
        // Entries with ports, as some balancers write them.
        #expect(Self.lane("127.0.0.1", ["198.51.100.1:5678"]) == "198.51.100.1")
        #expect(Self.lane("127.0.0.1", ["[2001:db8:7:8::1]:443"]) == "2001:db8:7:8::/64")
        // A server on `::` sees a loopback proxy as IPv4-mapped: still trusted.
        #expect(Self.lane("::ffff:127.0.0.1", ["198.51.100.1"]) == "198.51.100.1")
        // No header, or nothing readable: the proxy itself.
        #expect(Self.lane("127.0.0.1") == "127.0.0.1")
        #expect(Self.lane("127.0.0.1", ["unknown"]) == "127.0.0.1")
    }

    @Test func anIPv6ClientIsItsSlash64() {
        #expect(Self.lane("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64")
        #expect(Self.lane("2001:db8:1:2:bbbb::9") == "2001:db8:1:2::/64")
        #expect(Self.lane("::ffff:192.0.2.7") == "192.0.2.7")
    }
}
