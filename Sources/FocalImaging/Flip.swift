/// Mirroring of an output: left to right, top to bottom, or both (thumbor's `-W` and `-H`).
public struct Flip: OptionSet, Hashable, Sendable, Encodable, CustomStringConvertible {
    public let rawValue: Int

    /// Creates a set from its raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Left to right.
    public static let horizontal = Flip(rawValue: 1)
    /// Top to bottom.
    public static let vertical = Flip(rawValue: 2)

    /// `none`, `h`, `v` or `hv`.
    public var description: String {
        let text = (contains(.horizontal) ? "h" : "") + (contains(.vertical) ? "v" : "")
        return text.isEmpty ? "none" : text
    }
}
