/// A stable, machine-readable error kind, such as `input.too_large`: `<area>.<what>`.
///
/// The area says whose problem it is: `request` (the options asked for), `input` (the image),
/// `output` (the result asked for), `fetch` (a URL), `server` (capacity), `models` (detector
/// files), `detection`, `internal`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The code's text, e.g. `input.too_large`.
    public let rawValue: String

    /// Wraps a code's text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The part before the dot: `input`, `fetch`, ...
    public var area: Substring { rawValue.prefix { $0 != "." } }

    public var description: String { rawValue }

    // MARK: Requests

    /// An option or target is malformed or out of range.
    public static let requestInvalid = ErrorCode(rawValue: "request.invalid")
    /// A URL written another way than the one Focal accepts (a percent-encoded signature, a
    /// number with a leading zero, a filter given twice): one meaning has one URL.
    public static let requestNotCanonical = ErrorCode(rawValue: "request.not_canonical")
    /// A signed URL's signature does not verify with any key.
    public static let requestBadSignature = ErrorCode(rawValue: "request.bad_signature")
    /// An `unsafe/` URL, and the service does not serve them.
    public static let requestUnsafeRefused = ErrorCode(rawValue: "request.unsafe_refused")
    /// A write without the bearer token, or with a wrong one.
    public static let requestUnauthorized = ErrorCode(rawValue: "request.unauthorized")
    /// No such route, image or override.
    public static let requestNotFound = ErrorCode(rawValue: "request.not_found")
    /// The request body is larger than the body limit.
    public static let requestTooLarge = ErrorCode(rawValue: "request.too_large")
    /// A conditional write whose `If-Match` names a revision that is no longer current.
    public static let requestPreconditionFailed = ErrorCode(rawValue: "request.precondition_failed")
    /// A client sent its request head or body too slowly (the connection's deadlines).
    public static let requestTimeout = ErrorCode(rawValue: "request.timeout")
    /// The client went away before its answer was ready (logged; never sent).
    public static let clientAborted = ErrorCode(rawValue: "client.aborted")

    // MARK: Inputs

    /// The input has no bytes.
    public static let inputEmpty = ErrorCode(rawValue: "input.empty")
    /// The input has more bytes than the byte limit.
    public static let inputTooLarge = ErrorCode(rawValue: "input.too_large")
    /// The image's header claims more pixels, or a longer side, than the limits allow.
    public static let inputTooManyPixels = ErrorCode(rawValue: "input.too_many_pixels")
    /// The image is far wider than tall or the reverse, beyond the aspect-ratio limit.
    public static let inputExtremeAspect = ErrorCode(rawValue: "input.extreme_aspect")
    /// Decoding the image would cost more memory or work than the per-decode budget.
    public static let inputTooCostly = ErrorCode(rawValue: "input.too_costly")
    /// Working on the input took longer than its deadline.
    public static let inputTimeout = ErrorCode(rawValue: "input.timeout")
    /// The bytes are not an image at all.
    public static let inputNotAnImage = ErrorCode(rawValue: "input.not_an_image")
    /// The bytes are an image in a format Focal does not accept (SVG, PDF, ...).
    public static let inputUnsupported = ErrorCode(rawValue: "input.unsupported")
    /// The image is truncated or corrupt.
    public static let inputCorrupt = ErrorCode(rawValue: "input.corrupt")
    /// No such file, or not one Focal may read.
    public static let inputNotFound = ErrorCode(rawValue: "input.not_found")
    /// The path names a folder, a pipe, a device: not a regular file.
    public static let inputNotAFile = ErrorCode(rawValue: "input.not_a_file")
    /// The file exists but could not be read.
    public static let inputUnreadable = ErrorCode(rawValue: "input.unreadable")

    // MARK: Outputs

    /// The output asked for is larger than the output limits or the upscale limit allow.
    public static let outputTooLarge = ErrorCode(rawValue: "output.too_large")
    /// Encoding the output failed.
    public static let outputEncodeFailed = ErrorCode(rawValue: "output.encode_failed")
    /// Writing the output file failed.
    public static let outputWriteFailed = ErrorCode(rawValue: "output.write_failed")

    // MARK: URLs

    /// Not an http(s) URL with a host.
    public static let fetchInvalidURL = ErrorCode(rawValue: "fetch.invalid_url")
    /// The URL's host is not on the allow-list of sources.
    public static let fetchNotAllowed = ErrorCode(rawValue: "fetch.not_allowed")
    /// The URL's host resolved to (or redirected to) an address the policy refuses: loopback,
    /// private, link-local, ...
    public static let fetchAddressRefused = ErrorCode(rawValue: "fetch.address_refused")
    /// No connection could be made.
    public static let fetchConnection = ErrorCode(rawValue: "fetch.connection")
    /// Connecting, reading or the whole fetch took too long.
    public static let fetchTimeout = ErrorCode(rawValue: "fetch.timeout")
    /// The body is larger than the byte limit.
    public static let fetchTooLarge = ErrorCode(rawValue: "fetch.too_large")
    /// Too many redirects, or a redirect loop.
    public static let fetchRedirects = ErrorCode(rawValue: "fetch.redirects")
    /// The server answered with a status other than 2xx.
    public static let fetchStatus = ErrorCode(rawValue: "fetch.status")
    /// The body is not an image.
    public static let fetchNotAnImage = ErrorCode(rawValue: "fetch.not_an_image")

    // MARK: Capacity, models, detection

    /// Too much work is queued; try again later.
    public static let serverOverloaded = ErrorCode(rawValue: "server.overloaded")
    /// The answers being sent hold their whole memory budget; try again shortly.
    public static let serverAnswersFull = ErrorCode(rawValue: "server.answers_full")
    /// The request took longer than the request timeout.
    public static let serverTimeout = ErrorCode(rawValue: "server.timeout")
    /// The service is not ready (models not loaded, shutting down).
    public static let serverNotReady = ErrorCode(rawValue: "server.not_ready")
    /// A store the service depends on (the overrides database) failed.
    public static let serverStorage = ErrorCode(rawValue: "server.storage")
    /// A model file is missing.
    public static let modelsMissing = ErrorCode(rawValue: "models.missing")
    /// A model file could not be loaded.
    public static let modelsInvalid = ErrorCode(rawValue: "models.invalid")
    /// A detector failed while running.
    public static let detectionFailed = ErrorCode(rawValue: "detection.failed")
    /// Something failed that should not have; the detail says what.
    public static let internalFailure = ErrorCode(rawValue: "internal.failure")

    /// Every code Focal uses, in one list (a test checks it against the declarations above), so
    /// that every code can be walked: each has a deliberate HTTP status (`FocalServer`).
    public static let all: [ErrorCode] = [
        .requestInvalid, .requestNotCanonical, .requestBadSignature, .requestUnsafeRefused, .requestUnauthorized, .requestNotFound,
        .requestTooLarge, .requestPreconditionFailed, .requestTimeout, .clientAborted, .inputEmpty, .inputTooLarge,
        .inputTooManyPixels, .inputExtremeAspect, .inputTooCostly, .inputTimeout, .inputNotAnImage,
        .inputUnsupported, .inputCorrupt, .inputNotFound, .inputNotAFile, .inputUnreadable, .outputTooLarge,
        .outputEncodeFailed, .outputWriteFailed, .fetchInvalidURL, .fetchNotAllowed, .fetchAddressRefused,
        .fetchConnection, .fetchTimeout, .fetchTooLarge, .fetchRedirects, .fetchStatus, .fetchNotAnImage,
        .serverOverloaded, .serverAnswersFull, .serverTimeout, .serverNotReady, .serverStorage, .modelsMissing, .modelsInvalid,
        .detectionFailed, .internalFailure,
    ]
}
