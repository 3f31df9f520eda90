extension CropOption {
    /// How a URL gives this option, with its first example: `filters:NAME(VALUE)`, or its other form.
    public var urlText: String { filter.map { "`\($0)(\(examples.first ?? ""))`" } ?? urlForm ?? "—" }

    /// The table of crop options in `docs/options.md`, one row per option (`make generated` writes
    /// it between that page's `crop-options` markers; a test checks the page has it).
    public static var markdownTable: String {
        var lines = [
            "| option | URL filter (an example) | JSON key | command line | `<focal-img>` | values | default | what it does |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for option in all {
            let cells = [
                "**\(option.name)**", option.urlText, "`\"\(option.name)\"`", "`--\(option.name)`", "`\(option.name)`", option.values,
                option.defaultText, option.summary,
            ]
            lines.append("| " + cells.map { $0.replacingPipes }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// What `<focal-img>` needs of the table, as a JSON array, one option per line: each
    /// option's attribute, URL filter (null for `detect`, which is the URL's `smart/`, and for an
    /// option that is a URL segment of its own), the element's default (null when the element
    /// leaves the option out), `bare` for an option switched on with no value (`grayscale()`: the
    /// attribute alone turns it on) and `segment` for one written as a segment before the size
    /// (`trim:VALUE/`).
    public static var elementJSON: String {
        "[\n" + all.map { option in
            var line = "  {\"attribute\": \"\(option.name)\", \"filter\": " + (option.filter.map { "\"\($0)\"" } ?? "null")
                + ", \"default\": " + (option.elementDefault.map { "\"\($0)\"" } ?? "null")
            if option.examples.first == "" { line += ", \"bare\": true" }
            if option.filter == nil, option.urlForm?.hasPrefix("`\(option.name)") == true { line += ", \"segment\": \"\(option.name)\"" }
            return line + "}"
        }.joined(separator: ",\n") + "\n]"
    }
}

extension String {
    /// The text with `|` escaped for a Markdown table cell.
    fileprivate var replacingPipes: String {
        var result = ""
        for character in self { result += character == "|" ? "\\|" : String(character) }
        return result
    }
}
