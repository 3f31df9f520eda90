/// Why an image could not be fetched from a URL. Every message names the URL.
public struct FetchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Hashable, Sendable {
        /// Not an http or https URL, or no host.
        case invalidURL
        /// No connection could be made (refused, unknown host, reset).
        case connectionFailed
        /// The connection, a read, or the whole fetch took longer than allowed.
        case timeout
        /// The body is, or was going to be, larger than the byte limit.
        case tooLarge
        /// More redirects than allowed, or a redirect loop.
        case tooManyRedirects
        /// The server answered with a status other than 2xx.
        case httpStatus
        /// The body does not start like an image, whatever its Content-Type says.
        case notAnImage
    }

    /// The kind of failure.
    public var code: Code
    /// The URL asked for.
    public var url: String
    /// What went wrong and what to do.
    public var message: String
    /// The HTTP status for `.httpStatus`.
    public var status: Int?

    /// Creates an error.
    public init(_ code: Code, url: String, _ message: String, status: Int? = nil) {
        self.code = code
        self.url = url
        self.message = message
        self.status = status
    }

    public var description: String { "\(url): \(message)" }
}
