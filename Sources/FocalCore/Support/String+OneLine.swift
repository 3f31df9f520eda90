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

    /// The text as one line (`oneLine`), at most `limit` characters of it, marked `…` when cut:
    /// what a message echoes of something a client sent.
    package func excerpt(_ limit: Int = 120) -> String {
        let line = oneLine
        return line.count <= limit ? line : String(line.prefix(max(0, limit))) + "…"
    }
}
