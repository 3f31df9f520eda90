/// A setting that cannot be taken: a flag or variable of `focal serve`, an address range, a
/// source pattern. It names the setting and where it came from when known, the value unless it is
/// secret, and what is expected instead.
public struct SettingError: FocalError, Hashable {
    /// Always `request.invalid`: the setting, not the work, is at fault.
    public var code: ErrorCode { .requestInvalid }
    /// The setting's name (`max-frames`), when known.
    public var setting: String?
    /// Where the value came from: the flag (`--max-frames`), the variable (`FOCAL_MAX_FRAMES`) or
    /// the default; nil when not known.
    public var origin: String?
    /// The value as given; nil for a secret, or a list whose reason names the item.
    public var value: String?
    /// What is wrong and what is expected instead.
    public var reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - setting: The setting's name; default unknown.
    ///   - origin: The flag, variable or default that gave the value; default unknown.
    ///   - value: The value as given; default none (secret, or not worth repeating).
    ///   - reason: What is wrong and what is expected instead.
    public init(setting: String? = nil, origin: String? = nil, value: String? = nil, reason: String) {
        self.setting = setting
        self.origin = origin
        self.value = value
        self.reason = reason
    }

    /// A sentence for a remote user, without the setting or its value.
    public var publicMessage: String { "a setting is not valid" }

    /// `--max-frames 0: must be between 1 and 1024.`, `FOCAL_MAX_FRAMES=0: ...`, `FOCAL_TOKEN: ...`;
    /// without an origin, `"10.0.0.0/33" has a prefix length outside 0...32`.
    public var description: String {
        guard let origin else { return value.map { "\"\($0.oneLine)\" \(reason.oneLine)" } ?? reason.oneLine }
        let given = value.map { (origin.hasPrefix("FOCAL_") ? "=" : " ") + $0.oneLine } ?? ""
        return "\(origin)\(given): \(reason.oneLine)."
    }
}
