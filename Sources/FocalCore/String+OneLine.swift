extension String {
    /// The text with control characters (a newline or an escape in a file name) written as
    /// `\u{a}`, so that a message built from it stays one honest line.
    package var oneLine: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
