/// An 8-bit sRGB colour, as thumbor's filters name them: hex digits without `#` (`ff0000`,
/// `f00`) or one of CSS's sixteen basic colour names (`black`, `white`, `red`, `silver`, ...).
public struct RGBColour: Hashable, Sendable, Codable {
    /// Red, green and blue, 0-255.
    public var red, green, blue: UInt8

    /// Creates a colour from its three components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// CSS's basic colours by name (`gray` and `grey` both).
    static let named: [String: RGBColour] = [
        "black": .init(red: 0, green: 0, blue: 0), "white": .init(red: 255, green: 255, blue: 255),
        "red": .init(red: 255, green: 0, blue: 0), "lime": .init(red: 0, green: 255, blue: 0),
        "blue": .init(red: 0, green: 0, blue: 255), "yellow": .init(red: 255, green: 255, blue: 0),
        "cyan": .init(red: 0, green: 255, blue: 255), "aqua": .init(red: 0, green: 255, blue: 255),
        "magenta": .init(red: 255, green: 0, blue: 255), "fuchsia": .init(red: 255, green: 0, blue: 255),
        "silver": .init(red: 192, green: 192, blue: 192), "gray": .init(red: 128, green: 128, blue: 128),
        "grey": .init(red: 128, green: 128, blue: 128), "maroon": .init(red: 128, green: 0, blue: 0),
        "olive": .init(red: 128, green: 128, blue: 0), "green": .init(red: 0, green: 128, blue: 0),
        "purple": .init(red: 128, green: 0, blue: 128), "teal": .init(red: 0, green: 128, blue: 128),
        "navy": .init(red: 0, green: 0, blue: 128), "orange": .init(red: 255, green: 165, blue: 0),
    ]

    /// Reads `ff8800`, `#ff8800`, `f80` or a basic colour name, in any case; nil for anything else.
    public init?(text: String) {
        let lowered = text.trimmingSpaces.lowercased()
        if let named = Self.named[lowered] {
            self = named
            return
        }
        let hex = lowered.hasPrefix("#") ? String(lowered.dropFirst()) : lowered
        guard hex.utf8.count == 6 || hex.utf8.count == 3, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
            let value = UInt32(hex, radix: 16)
        else { return nil }
        if hex.utf8.count == 3 {
            let (r, g, b) = (UInt8((value >> 8) & 0xf), UInt8((value >> 4) & 0xf), UInt8(value & 0xf))
            self.init(red: r * 17, green: g * 17, blue: b * 17)
        } else {
            self.init(red: UInt8((value >> 16) & 0xff), green: UInt8((value >> 8) & 0xff), blue: UInt8(value & 0xff))
        }
    }

    /// Six lower-case hex digits, no `#` (`ff8800`): the canonical spelling.
    public var hex: String {
        [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
