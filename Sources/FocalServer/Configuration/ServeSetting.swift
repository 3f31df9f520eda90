public import Focal
import Foundation

/// One setting of `focal serve`, declared once: its flag, its `FOCAL_*` environment variable, its
/// default, a line of help, whether it is secret, how its text is read into a `ServerConfiguration`
/// and how the start-up log shows it. `ServeSetting.all` lists them; the flags' help, the reading of
/// flags, variables and defaults (`ServerConfiguration(flags:environment:)`) and the start-up log line
/// (`ServerConfiguration.summary`) all come from that list.
public struct ServeSetting: Sendable {
    /// How a setting is written on the command line and in its variable.
    public enum Form: Sendable, Hashable {
        /// `--name VALUE` once; `FOCAL_NAME=VALUE`.
        case value
        /// `--name VALUE`, repeatable; `FOCAL_NAME=A,B` (comma-separated, each item trimmed).
        case list
        /// `--name` alone; `FOCAL_NAME=1` (or `true`, `yes`, `on`; `0`, `false`, `no`, `off` leave it off).
        case flag
    }

    /// The flag's long name without its dashes (`max-frames`); the command's property is its lower camel case (`maxFrames`).
    public let name: String
    /// The environment variable (`FOCAL_MAX_FRAMES`): `FOCAL_` and the name in capitals, unless declared otherwise.
    public let variable: String
    /// How it is written.
    public let form: Form
    /// The placeholder of its value in `--help` (`n`, `MiB`, `seconds`, `dir`); empty for a flag.
    public let valueName: String
    /// What it sets, in one line without a final stop and without its default.
    public let summary: String
    /// The default, in the flag's own grammar, read like a given value when neither the flag nor the
    /// variable is given; nil when the setting is off or absent by default, or computed (see `defaultNote`).
    public let defaultValue: String?
    /// The default in words when it is not a value (`one per core`); nil otherwise.
    public let defaultNote: String?
    /// A valid value other than the default: every setting is proved settable by flag and by variable with it.
    public let sample: String
    /// Whether the value is a secret: it is never logged nor repeated in an error, not even in part.
    public let secret: Bool
    /// Reads the given texts (one for a value or a flag, one or more for a list) into a configuration.
    let apply: @Sendable (inout ServerConfiguration, [String]) throws -> Void
    /// The value in force, as the start-up log shows it; a secret's never shows it.
    let show: @Sendable (ServerConfiguration) -> String

    /// Declares a setting given once: `--name VALUE`, `FOCAL_NAME=VALUE`.
    /// - Parameters:
    ///   - name: The flag without its dashes.
    ///   - variable: The environment variable; default `FOCAL_` and `name` in capitals, dashes as underscores.
    ///   - valueName: The placeholder in `--help`.
    ///   - defaultValue: The default in the flag's grammar; default none.
    ///   - defaultNote: The default in words when it is not a value; default none.
    ///   - sample: A valid value other than the default.
    ///   - secret: Whether the value is secret; default `false`.
    ///   - summary: One line of help, without a final stop or the default.
    ///   - apply: Reads the text into a configuration; throws `SettingError` (or any `FocalError`) for text it cannot take.
    ///   - show: The value in force for the start-up log.
    init(
        _ name: String, variable: String? = nil, valueName: String, defaultValue: String? = nil, defaultNote: String? = nil, sample: String,
        secret: Bool = false, _ summary: String, apply: @escaping @Sendable (inout ServerConfiguration, String) throws -> Void,
        show: @escaping @Sendable (ServerConfiguration) -> String
    ) {
        self.init(
            name, variable, .value, valueName, defaultValue, defaultNote, sample, secret, summary, apply: { try apply(&$0, $1[0]) }, show: show)
    }

    /// Declares a repeatable setting: `--name A --name B`, `FOCAL_NAME=A,B`.
    /// - Parameters:
    ///   - name: The flag without its dashes.
    ///   - variable: The environment variable; default `FOCAL_` and `name` in capitals, dashes as underscores.
    ///   - valueName: The placeholder in `--help`.
    ///   - defaultNote: The default in words; default none.
    ///   - sample: Valid items other than the default, comma-separated.
    ///   - secret: Whether the items are secret; default `false`.
    ///   - summary: One line of help, without a final stop or the default.
    ///   - apply: Reads the items into a configuration; throws `SettingError` (or any `FocalError`) for one it cannot take.
    ///   - show: The value in force for the start-up log.
    init(
        list name: String, variable: String? = nil, valueName: String, defaultNote: String? = nil, sample: String, secret: Bool = false,
        _ summary: String, apply: @escaping @Sendable (inout ServerConfiguration, [String]) throws -> Void,
        show: @escaping @Sendable (ServerConfiguration) -> String
    ) {
        self.init(name, variable, .list, valueName, nil, defaultNote, sample, secret, summary, apply: apply, show: show)
    }

    /// Declares a flag: `--name`, `FOCAL_NAME=1`; off unless given.
    /// - Parameters:
    ///   - name: The flag without its dashes.
    ///   - variable: The environment variable; default `FOCAL_` and `name` in capitals, dashes as underscores.
    ///   - summary: One line of help, without a final stop.
    ///   - apply: Sets the configuration for the flag on (`true`) or a variable that says off (`false`).
    ///   - show: The value in force for the start-up log.
    init(
        flag name: String, variable: String? = nil, _ summary: String, apply: @escaping @Sendable (inout ServerConfiguration, Bool) -> Void,
        show: @escaping @Sendable (ServerConfiguration) -> String
    ) {
        self.init(name, variable, .flag, "", nil, nil, "1", false, summary, apply: { apply(&$0, try Self.boolean($1[0])) }, show: show)
    }

    /// Every field as given.
    private init(
        _ name: String, _ variable: String?, _ form: Form, _ valueName: String, _ defaultValue: String?, _ defaultNote: String?, _ sample: String,
        _ secret: Bool, _ summary: String, apply: @escaping @Sendable (inout ServerConfiguration, [String]) throws -> Void,
        show: @escaping @Sendable (ServerConfiguration) -> String
    ) {
        self.name = name
        self.variable = variable ?? "FOCAL_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
        self.form = form
        self.valueName = valueName
        self.summary = summary
        self.defaultValue = defaultValue
        self.defaultNote = defaultNote
        self.sample = sample
        self.secret = secret
        self.apply = apply
        self.show = show
    }

    /// The flag as typed: `--max-frames`.
    public var flag: String { "--" + name }

    /// The line `focal serve --help` shows: the summary, the default, the variable and whether it is secret.
    public var help: String {
        var notes: [String] = []
        if let defaultValue {
            notes.append("default \(defaultValue)")
        } else if let defaultNote {
            notes.append("default: \(defaultNote)")
        }
        switch form {
        case .value: notes.append(variable)
        case .list: notes.append("repeatable; \(variable), comma-separated")
        case .flag: notes.append("\(variable)=1")
        }
        if secret { notes.append("hidden in logs") }
        return "\(summary) (\(notes.joined(separator: "; ")))."
    }

    /// Sets this setting in `configuration` from its flag, else its variable, else its default.
    /// - Parameters:
    ///   - configuration: The configuration to change.
    ///   - flag: What the command line gave: nil or empty when the flag was not given (a flag given alone: `["true"]`).
    ///   - variable: The variable's value; nil or empty when it is not set.
    /// - Throws: `SettingError` naming the flag or the variable, and the value unless it is secret or a list.
    func resolve(into configuration: inout ServerConfiguration, flag: [String]?, variable value: String?) throws(SettingError) {
        let origin: String
        let texts: [String]
        if let flag, !flag.isEmpty {
            (origin, texts) = (self.flag, form == .list ? flag.map { $0.trimmingCharacters(in: .whitespaces) } : flag)
        } else if let value, !value.isEmpty {
            (origin, texts) = (variable, form == .list ? Self.items(value) : [value])
        } else if let defaultValue {
            (origin, texts) = ("the default of \(self.flag)", form == .list ? Self.items(defaultValue) : [defaultValue])
        } else {
            return
        }
        do {
            try apply(&configuration, texts)
        } catch {
            throw SettingError(setting: name, origin: origin, value: secret || form == .list ? nil : texts.first, reason: Self.reason(error))
        }
    }

    /// The items of a comma-separated variable, trimmed, without empty ones.
    static func items(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// What is wrong, from whatever `apply` threw.
    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as any CustomStringConvertible: error.description
        default: "\(error)"
        }
    }
}
