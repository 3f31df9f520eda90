import Focal
import Foundation

// How the settings' texts are read: the same for a flag, its variable and its default.
extension ServeSetting {
    /// A whole number within `range`.
    /// - Throws: `SettingError` saying the range.
    static func number(_ text: String, in range: ClosedRange<Int>) throws -> Int {
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw SettingError(reason: "not a whole number; give one between \(range.lowerBound) and \(range.upperBound)")
        }
        guard range.contains(number) else { throw SettingError(reason: "must be between \(range.lowerBound) and \(range.upperBound)") }
        return number
    }

    /// A number of seconds, more than 0 and at most `most` (default an hour), kept to the millisecond.
    /// - Throws: `SettingError` saying the range.
    static func seconds(_ text: String, most: Double = 3600) throws -> Duration {
        guard let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds.isFinite else {
            throw SettingError(reason: "not a number of seconds; give one more than 0 and at most \(Int(most))")
        }
        guard seconds > 0, seconds <= most else { throw SettingError(reason: "must be more than 0 and at most \(Int(most)) seconds") }
        return .milliseconds(Int(seconds * 1000))
    }

    /// A `Timing-Allow-Origin` value: `*`, `none` (nil: no header), or origins (`https://a.example`,
    /// `http://localhost:8080`) separated by commas, written back as the header lists them.
    /// - Throws: `SettingError` naming the origin that is not one.
    static func timingOrigins(_ text: String) throws -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return "*" }
        if trimmed.lowercased() == "none" || trimmed.isEmpty { return nil }
        // Browsers compare serialized origins: lowercase scheme and host.
        let origins = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        for origin in origins {
            guard let components = URLComponents(string: origin), ["http", "https"].contains(components.scheme ?? ""),
                let host = components.host, !host.isEmpty, components.path.isEmpty, components.query == nil, components.fragment == nil,
                components.user == nil, !host.contains("*"), !origin.hasSuffix(":"),
                origin.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 })
            else { throw SettingError(reason: "\"\(origin.prefix(80))\" is not an origin such as https://www.example.com; give *, none, or origins separated by commas") }
        }
        return origins.joined(separator: ", ")
    }

    /// A boolean: `1`, `true`, `yes` or `on`; `0`, `false`, `no` or `off`; any case.
    /// - Throws: `SettingError` listing the words.
    static func boolean(_ text: String) throws -> Bool {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw SettingError(reason: "must be 1, true, yes or on (or 0, false, no, off)")
        }
    }

    /// A PostgreSQL URL as `PostgresOverrideStore` takes it: `postgres://user:password@host:port/database`.
    /// - Throws: `SettingError` that repeats nothing of the URL (it holds a password).
    static func databaseURL(_ text: String) throws -> String {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, components.user != nil
        else {
            throw SettingError(reason: "must be a URL like postgres://user:password@host:5432/database")
        }
        return text
    }

    /// A database URL for the log: its password, any query and fragment replaced by `***`, whole.
    static func masked(databaseURL url: String) -> String {
        guard var components = URLComponents(string: url) else { return "(set, hidden)" }
        if components.password != nil { components.password = "***" }
        if components.query != nil { components.query = "***" }
        if components.fragment != nil { components.fragment = "***" }
        return components.string ?? "(set, hidden)"
    }
}
