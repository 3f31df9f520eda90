public import FocalCore

/// Why an image could not be fetched from a URL. Every message names the URL.
public struct FetchError: FocalError, Hashable {
    /// `fetch.invalid_url`, `fetch.not_allowed`, `fetch.address_refused`, `fetch.connection`,
    /// `fetch.timeout`, `fetch.too_large`, `fetch.redirects`, `fetch.status` or
    /// `fetch.not_an_image`.
    public var code: ErrorCode
    /// The URL asked for.
    public var url: String
    /// What went wrong and what to do, for the person running Focal.
    public var message: String
    /// The HTTP status for `fetch.status`.
    public var status: Int?
    /// The underlying error's words, for logs.
    public var cause: String?

    /// Creates an error.
    public init(_ code: ErrorCode, url: String, _ message: String, status: Int? = nil, cause: String? = nil) {
        self.code = code
        self.url = url
        self.message = message
        self.status = status
        self.cause = cause
    }

    /// A sentence for a remote user: what happened to the source, without addresses.
    public var publicMessage: String {
        switch code {
        case .fetchInvalidURL: "the source is not an http or https URL with a host"
        case .fetchNotAllowed: "the source's host is not allowed"
        case .fetchAddressRefused: "the source's address is not allowed"
        case .fetchConnection: "the source could not be reached"
        case .fetchTimeout: "the source took too long to answer"
        case .fetchTooLarge: "the source's image is larger than the byte limit"
        case .fetchRedirects: "the source redirected too many times"
        case .fetchStatus: "the source answered HTTP \(status.map(String.init) ?? "error") instead of an image"
        case .fetchNotAnImage: "the source is not an image"
        default: "the source could not be fetched"
        }
    }

    public var description: String { "\(url.oneLine): \(message.oneLine)" }

    public var detail: String { description + (cause.map { " [\($0.oneLine)]" } ?? "") }
}
