public import FocalCore

/// A network setting that cannot be read: an address range or a source pattern.
public struct NetworkSettingError: FocalError, Hashable {
    /// Always `request.invalid`: the setting, not the network, is at fault.
    public var code: ErrorCode { .requestInvalid }
    /// The text that was given.
    public var value: String
    /// What is wrong with it and what is expected instead.
    public var message: String

    /// Creates an error about `value`.
    public init(_ value: String, _ message: String) {
        self.value = value
        self.message = message
    }

    /// A sentence for a remote user, without the value itself.
    public var publicMessage: String { "a network setting is not valid" }

    public var description: String { "\"\(value.oneLine)\" \(message.oneLine)" }
}
