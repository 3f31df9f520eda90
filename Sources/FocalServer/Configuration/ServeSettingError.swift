public import FocalCore

/// A setting of `focal serve` that cannot be taken: which flag or variable gave it, the value
/// (unless the setting is secret, or a list whose reason names the item), and what is expected.
public struct ServeSettingError: FocalError, Hashable {
    /// Always `request.invalid`: the setting, not the server, is at fault.
    public var code: ErrorCode { .requestInvalid }
    /// The setting's name (`max-frames`).
    public var setting: String
    /// Where the value came from: the flag (`--max-frames`), the variable (`FOCAL_MAX_FRAMES`) or the default.
    public var origin: String
    /// The value as given; nil for a secret or a list.
    public var value: String?
    /// What is wrong and what is expected instead.
    public var reason: String

    /// Creates an error about `setting`.
    public init(setting: String, origin: String, value: String?, reason: String) {
        self.setting = setting
        self.origin = origin
        self.value = value
        self.reason = reason
    }

    /// A sentence for a remote user, without the setting or its value.
    public var publicMessage: String { "a server setting is not valid" }

    /// `--max-frames 0: must be between 1 and 1024.`, `FOCAL_MAX_FRAMES=0: ...`, `FOCAL_TOKEN: ...`.
    public var description: String {
        let given = value.map { (origin.hasPrefix("FOCAL_") ? "=" : " ") + $0.oneLine } ?? ""
        return "\(origin)\(given): \(reason.oneLine)."
    }
}
