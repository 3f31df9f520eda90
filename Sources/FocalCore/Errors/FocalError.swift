/// The shape every Focal error has: a stable code, a message safe to show anyone, and a detail
/// for logs.
///
/// - `code` is stable across releases and says what kind of failure it was (`input.too_large`);
///   a server maps it to an HTTP status, a script matches on it.
/// - `publicMessage` says what is wrong with the request in words a remote user can act on. It
///   never holds a local path, a library's raw message or a command-line flag.
/// - `description` is for the person running Focal (the command line prints it): it names the
///   input and may say which option or setting to change.
/// - `detail` is for logs: the description plus the underlying cause.
public protocol FocalError: Error, Sendable, CustomStringConvertible {
    /// The stable, machine-readable kind of failure.
    var code: ErrorCode { get }
    /// What went wrong, safe to show a remote user.
    var publicMessage: String { get }
    /// Everything known, the cause included, for logs.
    var detail: String { get }
}

extension FocalError {
    public var detail: String { description }
}
