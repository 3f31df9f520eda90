import Focal
import Foundation
import HTTPTypes

/// The `Server-Timing` header of an image answer: `focal-plan;desc="…"`, the `X-Focal-Plan`
/// JSON as a quoted string, and `focal-type;desc="image/avif"`, the answer's media type. A page
/// reads them from the image's Resource Timing entry (where
/// `Timing-Allow-Origin` lets it), so that `<focal-img>` can show a crop with a plain `<img src>`,
/// the browser's own request, and still know the plan without a second request.
///
/// Then where the answer's time went, as browsers' devtools show it: `name;dur=ms` for each step
/// of the crop (`CropResult.timings`: `fetch`, `open`, `decode`, `detect-faces`, `infer-faces`,
/// `plan`, `render`, `encode`, ...), and for a cached answer `cache;desc="memory"` (or
/// `disk`) before its lookup's.
enum ServerTiming {
    /// The header value for an answer with `plan` (compact JSON) of media type `type`, and the
    /// steps `timings` of a result from `origin`.
    static func value(plan: String, type: String, timings: [StepTiming] = [], origin: CropResult.Origin = .fresh) -> String {
        var entries = [entry("focal-plan", plan), entry("focal-type", type)]
        switch origin {
        case .memoryCache, .diskCache: entries.append(entry("cache", origin.name))
        default: break
        }
        entries += timings.map { "\($0.name);dur=\(milliseconds($0.duration))" }
        return entries.joined(separator: ", ")
    }

    /// A duration in milliseconds, to the microsecond.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micro = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return String(format: "%.3f", Double(max(0, micro)) / 1000)
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
