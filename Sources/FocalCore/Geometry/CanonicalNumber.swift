extension Double {
    /// Reads a plain decimal (`0.6`, `.5`, `24`, `1e-3`): finite, no `nan`, `inf` or hex, at most 32
    /// characters. Every door parses numbers in options through this.
    public init?(canonicalNumber text: String) {
        guard !text.isEmpty, text.count <= 32,
            text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E") }),
            let value = Double(text), value.isFinite
        else { return nil }
        self = value
    }

    /// The shortest text that reads back as this number, without a trailing `.0` (`0.6`, `24`,
    /// `1e-05`): how every door prints numbers in options.
    public var canonicalText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return description
    }
}

extension String {
    /// The text without spaces at either end.
    package var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
