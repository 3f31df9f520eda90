public import FocalCore
/// Which IP addresses Focal may connect to when it fetches a URL: the guard against
/// server-side request forgery (a URL that makes Focal reach this machine or its network).
///
/// The default, `.publicOnly`, refuses every special-purpose address (`AddressCategory`):
/// loopback, private, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
/// multicast, broadcast, reserved and the like, also when an IPv6 address carries one (IPv4-mapped,
/// NAT64, 6to4, Teredo, ...), and any address with a zone (`fe80::1%eth0`). Focal judges every
/// address a host name resolves to before connecting, connects only to one it judged, and judges
/// the address of every connection again once made, on every redirect too, so a name that
/// resolves (or re-resolves) to a private address is refused.
///
/// ```swift
/// AddressPolicy.publicOnly                                   // the library's default
/// AddressPolicy.allowAll                                     // the command line's default
/// try AddressPolicy(allowing: ["127.0.0.1", "10.1.0.0/16"])  // public, plus these
/// try AddressPolicy(allowing: [], denying: ["203.0.113.0/24"])  // public, less these
/// ```
public struct AddressPolicy: Hashable, Sendable {
    /// Whether special-purpose addresses are refused unless `allowedNetworks` holds them;
    /// default `true`.
    public var refusesSpecialPurpose: Bool
    /// Special-purpose networks allowed all the same, e.g. `127.0.0.1/32` for a server on this
    /// machine; default none. An IPv4 network here also allows that address inside IPv6.
    public var allowedNetworks: [IPNetwork]
    /// Networks always refused, whatever else says; default none.
    public var deniedNetworks: [IPNetwork]

    /// Public addresses only: every special-purpose address is refused.
    public static let publicOnly = AddressPolicy()

    /// Any address at all, as for a person fetching their own URLs.
    public static let allowAll = AddressPolicy(refusesSpecialPurpose: false)

    /// Creates a policy; every parameter defaults to the value documented on its property.
    public init(refusesSpecialPurpose: Bool = true, allowedNetworks: [IPNetwork] = [], deniedNetworks: [IPNetwork] = []) {
        self.refusesSpecialPurpose = refusesSpecialPurpose
        self.allowedNetworks = allowedNetworks
        self.deniedNetworks = deniedNetworks
    }

    /// Public addresses, plus the networks `allowing` names, less those `denying` names; each is
    /// an address or CIDR network (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`).
    /// - Throws: `SettingError` for text that is not an address or network.
    public init(allowing: [String], denying: [String] = []) throws(SettingError) {
        var allowed: [IPNetwork] = []
        for text in allowing { allowed.append(try IPNetwork(text)) }
        var denied: [IPNetwork] = []
        for text in denying { denied.append(try IPNetwork(text)) }
        self.init(allowedNetworks: allowed, deniedNetworks: denied)
    }

    /// Why Focal may not connect to `address`, or nil when it may.
    ///
    /// An address is refused when it, or an IPv4 address it carries, lies in `deniedNetworks`;
    /// or, with `refusesSpecialPurpose`, when it has a zone (whatever `allowedNetworks` says: a
    /// zone picks an interface of this machine), or when it or an IPv4 address it carries is
    /// special-purpose and in none of `allowedNetworks`.
    public func refusal(for address: IPAddress) -> AddressRefusal? {
        let faces = address.faces
        for network in deniedNetworks {
            if network.contains(address) { return AddressRefusal(address: address, refused: address, reason: .denied(network)) }
            if let face = faces.first(where: network.contains) {
                return AddressRefusal(address: address, refused: face, reason: .denied(network))
            }
        }
        guard refusesSpecialPurpose else { return nil }
        if address.zone != nil {
            // Named by its category when it has a special one (link-local, loopback inside it).
            let special = faces.first { $0.ownCategory.isSpecialPurpose }
            return AddressRefusal(
                address: address, refused: special ?? address, reason: special.map { .category($0.ownCategory) } ?? .zoned)
        }
        if allowedNetworks.contains(where: { $0.contains(address) }) { return nil }
        for face in faces {
            let category = face.ownCategory
            guard category.isSpecialPurpose, !allowedNetworks.contains(where: { $0.contains(face) }) else { continue }
            return AddressRefusal(address: address, refused: face, reason: .category(category))
        }
        return nil
    }

    /// Whether Focal may connect to `address`.
    public func allows(_ address: IPAddress) -> Bool { refusal(for: address) == nil }

    /// Whether the policy lets every address through, so connections need no check.
    var allowsEverything: Bool { !refusesSpecialPurpose && deniedNetworks.isEmpty }
}
