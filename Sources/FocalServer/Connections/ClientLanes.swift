import FocalFetch
import Foundation
import FocalRuntime
import HTTPTypes
import Hummingbird

/// Gives each request the lane (`WorkLane`) of its client, so that one client's flood of cold
/// renders takes at most half of the job places and memory budget and its native work takes turns
/// with everyone else's.
///
/// A client is its address: the peer's, or, when the peer is a trusted proxy
/// (`ServerConfiguration.trustedProxies`, loopback by default: Varnish or nginx on the same
/// machine), the rightmost `X-Forwarded-For` address that is not itself a trusted proxy. An IPv6
/// client is its /64, the block one subscriber usually has, so that a client cannot take a new
/// lane per address.
struct ClientLanes: RouterMiddleware {
    typealias Context = FocalRequestContext

    /// Proxies whose `X-Forwarded-For` is believed.
    let trustedProxies: [IPNetwork]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let peer = context.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let forwarded = Self.forwardedFor.map { request.headers[values: $0] } ?? []
        let lane = Self.lane(peer: peer, forwardedFor: forwarded, trustedProxies: trustedProxies)
        return try await WorkLane.$current.withValue(lane) { try await next(request, context) }
    }

    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")

    /// The lane of a request from `peer` carrying `forwardedFor` (each header line a list of
    /// addresses, the nearest hop last); nil without a peer (a test driving the router directly).
    static func lane(peer: IPAddress?, forwardedFor: [String], trustedProxies: [IPNetwork]) -> String? {
        guard let peer else { return nil }
        // A server listening on `::` sees an IPv4 proxy as `::ffff:a.b.c.d`.
        var client = unmapped(peer)
        if trustedProxies.contains(where: { $0.contains(client) }) {
            // At most 32 hops are read: a longer list is a client's own invention.
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }.suffix(32)
            for hop in hops.reversed() {
                guard let address = Self.address(ofHop: hop.trimmingCharacters(in: .whitespaces)) else { break }
                client = address
                if !trustedProxies.contains(where: { $0.contains(address) }) { break }
            }
        }
        return name(of: client)
    }

    /// The address of one `X-Forwarded-For` entry: an address alone, or with a port as some
    /// balancers write it (`192.0.2.7:5678`, `[2001:db8::1]:443`); IPv4-mapped ones as IPv4.
    static func address(ofHop hop: String) -> IPAddress? {
        var text = Substring(hop)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"), text.filter({ $0 == ":" }).count == 1 {
            text = text[..<colon]
        }
        return IPAddress(String(text)).map(unmapped)
    }

    /// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) as the IPv4 address; any other as it is.
    static func unmapped(_ address: IPAddress) -> IPAddress {
        let bytes = address.bytes
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return address }
        return IPAddress(bytes: Array(bytes[12...])) ?? address
    }

    /// An IPv4 address as itself, an IPv6 one as its /64 (`lane` unmaps IPv4-mapped ones first).
    static func name(of address: IPAddress) -> String {
        let bytes = address.bytes
        guard bytes.count == 16 else { return address.description }
        return stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }.joined(separator: ":") + "::/64"
    }
}
