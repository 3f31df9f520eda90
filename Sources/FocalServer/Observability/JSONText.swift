import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON value written straight to text, for what every request writes (its log line and the
/// `X-Focal-Plan` header): Foundation's `JSONSerialization`, with its casts from `Any` and a date
/// formatter made per call, cost more than serving a cached image.
enum JSONText: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONText])
    /// Members in the order given.
    case object([(String, JSONText)])

    /// The value as compact JSON.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the value as compact JSON.
    func write(to out: inout String) {
        switch self {
        case let .string(value): Self.quote(value, to: &out)
        case let .int(value): out += String(value)
        case let .double(value): out += value.isFinite ? Self.number(value) : "null"
        case let .bool(value): out += value ? "true" : "false"
        case .null: out += "null"
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case let .object(members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// A finite number as JSON writes it: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15, let whole = Int(exactly: value) { return String(whole) }
        return value.description
    }

    /// Appends `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The time now in UTC as RFC 3339 with milliseconds, e.g. `2026-11-23T14:20:01.123Z`.
    static func timestamp() -> String {
        let now = Date().timeIntervalSince1970
        let whole = now.rounded(.down)
        var seconds = time_t(whole)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let millis = Int32(clamping: Int(((now - whole) * 1000).rounded(.down)))
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2) + "." + padded(millis, 3) + "Z"
    }
}
