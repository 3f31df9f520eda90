public import FocalCore

/// Why an image could not be read, processed or written.
public struct ImagingError: FocalError, Hashable {
    /// The kind of failure: `input.empty`, `input.not_an_image`, `input.unsupported`,
    /// `input.corrupt`, `input.not_found`, `input.not_a_file`, `input.unreadable`,
    /// `input.timeout`, `output.encode_failed`, `output.write_failed` or `internal.failure`.
    public var code: ErrorCode
    /// What went wrong, safe to show a remote user: no path, no library text.
    public var message: String
    /// What a person running Focal can do about it, if anything; default none.
    public var hint: String?
    /// The file or source it concerns, when known.
    public var source: String?
    /// The underlying library's own words (libvips's message), for logs.
    public var cause: String?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, hint: String? = nil, source: String? = nil, cause: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
        self.source = source
        self.cause = cause
    }

    /// The same error naming `source`, unless it already names one.
    public func naming(_ source: String) -> ImagingError {
        var copy = self
        if copy.source == nil { copy.source = source }
        return copy
    }

    public var publicMessage: String { message }

    public var description: String {
        (source.map { "\($0.oneLine): " } ?? "") + message + (hint.map { "; \($0)" } ?? "")
    }

    public var detail: String {
        description + (cause.map { " [libvips: \($0.oneLine)]" } ?? "")
    }
}
