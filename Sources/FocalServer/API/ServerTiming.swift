import HTTPTypes

/// The `Server-Timing` header of an image answer: `focal-plan;desc="…"`, the `X-Focal-Plan`
/// JSON as a quoted string, and `focal-type;desc="image/avif"`, the answer's media type. A page
/// reads them from the image's Resource Timing entry (where
/// `Timing-Allow-Origin` lets it), so that `<focal-img>` can show a crop with a plain `<img src>`,
/// the browser's own request, and still know the plan without a second request.
enum ServerTiming {
    /// The header value for an answer with `plan` (compact JSON) of media type `type`.
    static func value(plan: String, type: String) -> String {
        entry("focal-plan", plan) + ", " + entry("focal-type", type)
    }

    /// `name;desc="text"`: quotes and backslashes escaped, anything outside printable ASCII
    /// dropped (a header value cannot carry it; plans and media types are ASCII).
    static func entry(_ name: String, _ text: String) -> String {
        var out = name + ";desc=\""
        out.reserveCapacity(text.utf8.count + name.utf8.count + 9)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": out.append("\\"); out.unicodeScalars.append(scalar)
            case " "..."~": out.unicodeScalars.append(scalar)
            default: continue
            }
        }
        out.append("\"")
        return out
    }
}

extension HTTPField.Name {
    /// Server timing metrics (here: the plan of an image answer).
    static var serverTiming: Self { Self("Server-Timing")! }
}
