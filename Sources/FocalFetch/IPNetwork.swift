public import FocalCore
/// A range of addresses written in CIDR notation: `10.0.0.0/8`, `fe80::/10`, or one address
/// (`127.0.0.1` is `127.0.0.1/32`).
///
/// An IPv4 network holds only IPv4 addresses and an IPv6 network only IPv6 ones;
/// `AddressPolicy` takes care of IPv4 addresses carried inside IPv6 ones.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the range (host bits cleared).
    public let address: IPAddress
    /// How many leading bits every address of the range shares: 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// The network of `address` and the `prefixLength` bits leading it; the bits after them are
    /// cleared, so `192.168.1.7/24` is `192.168.1.0/24`.
    /// - Throws: `SettingError` when the prefix length is out of range for the family.
    public init(_ address: IPAddress, prefixLength: Int) throws(SettingError) {
        let bits = address.bytes.count * 8
        guard (0...bits).contains(prefixLength) else {
            throw SettingError(value: "\(address)/\(prefixLength)", reason: "has a prefix length outside 0...\(bits)")
        }
        self.init(unchecked: address, prefixLength: prefixLength)
    }

    /// The network of one address: all its bits (`/32` or `/128`).
    public init(_ address: IPAddress) {
        self.init(unchecked: address, prefixLength: address.bytes.count * 8)
    }

    /// Parses `ADDRESS/BITS` or a single `ADDRESS` (all its bits).
    /// - Throws: `SettingError` saying what is expected.
    public init(_ text: String) throws(SettingError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(String(parts[0])) else {
            throw SettingError(value: text, reason: "is not an address or a network: write e.g. 10.0.0.0/8, 127.0.0.1 or fd00::/8")
        }
        guard parts.count == 2 else {
            self.init(unchecked: address, prefixLength: address.bytes.count * 8)
            return
        }
        let digits = parts[1]
        guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }), let length = Int(digits) else {
            throw SettingError(value: text, reason: "has no prefix length after the slash: write e.g. 10.0.0.0/8")
        }
        try self.init(address, prefixLength: length)
    }

    /// A network from an address and a length known to fit.
    init(unchecked address: IPAddress, prefixLength: Int) {
        self.prefixLength = prefixLength
        self.address = IPAddress(bytes: Self.masked(address.bytes, to: prefixLength)) ?? address
    }

    /// Whether `candidate` lies in this range (never, when the families differ).
    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.bytes.count == address.bytes.count else { return false }
        return Self.masked(candidate.bytes, to: prefixLength) == address.bytes
    }

    /// `ADDRESS/BITS`.
    public var description: String { "\(address)/\(prefixLength)" }

    /// `bytes` with every bit after the first `length` cleared.
    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(8, max(0, length - 8 * index))
            return kept == 8 ? byte : byte & ~(UInt8.max >> kept)
        }
    }
}
