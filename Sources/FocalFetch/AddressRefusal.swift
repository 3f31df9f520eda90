/// Why an `AddressPolicy` refused an address.
public struct AddressRefusal: Hashable, Sendable, CustomStringConvertible {
    /// What decided it.
    public enum Reason: Hashable, Sendable {
        /// The address is special-purpose, of this category, and not allowed explicitly.
        case category(AddressCategory)
        /// The address lies in this network of `AddressPolicy.deniedNetworks`.
        case denied(IPNetwork)
        /// The address has a zone (`fe80::1%eth0`), which picks an interface of this machine.
        case zoned
    }

    /// The address judged (the one connected, or the URL's literal host).
    public var address: IPAddress
    /// The address that was refused: `address` itself, or an IPv4 address it carries.
    public var refused: IPAddress
    /// What decided it.
    public var reason: Reason

    /// Creates a refusal.
    public init(address: IPAddress, refused: IPAddress, reason: Reason) {
        self.address = address
        self.refused = refused
        self.reason = reason
    }

    /// E.g. "127.0.0.1 is a loopback address", "2002:a00:1:: carries 10.0.0.1, a private
    /// address", "203.0.113.9 is in the denied network 203.0.113.0/24".
    public var description: String {
        let subject = refused == address ? "\(address) is" : "\(address) carries \(refused), which is"
        switch reason {
        case let .category(category):
            let article = category.rawValue.first.map { "aeiouAEIOU".contains($0) } == true ? "an" : "a"
            return "\(subject) \(article) \(category) address"
        case let .denied(network):
            return "\(subject) in the denied network \(network)"
        case .zoned:
            return "\(subject) an address with a zone, which picks a network interface of this machine"
        }
    }
}
