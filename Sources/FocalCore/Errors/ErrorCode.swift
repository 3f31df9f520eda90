/// A stable, machine-readable error kind, such as `input.too_large`: `<area>.<what>`.
///
/// The area says whose problem it is: `request` (the options asked for), `input` (the image),
/// `output` (the result asked for), `fetch` (a URL), `storage` (a bucket), `server` (capacity), `models` (detector
/// files), `detection`, `internal`. The codes the library makes are declared here; the ones only
/// the server makes (signatures, tokens, connections, its stores) are declared by the server.
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
    /// An animation has more frames, or more pixels in all its frames, than an animated output
    /// may be made from.
    public static let inputTooManyFrames = ErrorCode(rawValue: "input.too_many_frames")
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

    // MARK: Object storage

    /// Not `s3://BUCKET/KEY` with a valid bucket name and key.
    public static let storageInvalidAddress = ErrorCode(rawValue: "storage.invalid_address")
    /// The bucket is not the root's, nor one the operator allowed.
    public static let storageNotAllowed = ErrorCode(rawValue: "storage.not_allowed")
    /// An object address, but no object storage is configured.
    public static let storageNotConfigured = ErrorCode(rawValue: "storage.not_configured")
    /// No object with that key (the store answered 404).
    public static let storageNotFound = ErrorCode(rawValue: "storage.not_found")
    /// The store refused the request: the credentials or the signature (403, 401), a bucket that
    /// does not exist, a redirect (a wrong endpoint or region).
    public static let storageRefused = ErrorCode(rawValue: "storage.refused")
    /// The store could not be reached, answered 5xx or throttled past every retry, or was too slow.
    public static let storageUnavailable = ErrorCode(rawValue: "storage.unavailable")
    /// The object is larger than the byte limit (known from its `Content-Length`, before any body).
    public static let storageTooLarge = ErrorCode(rawValue: "storage.too_large")

    // MARK: Capacity, models, detection

    /// Too much work is queued; try again later.
    public static let serverOverloaded = ErrorCode(rawValue: "server.overloaded")
    /// A model file is missing.
    public static let modelsMissing = ErrorCode(rawValue: "models.missing")
    /// A model file could not be loaded.
    public static let modelsInvalid = ErrorCode(rawValue: "models.invalid")
    /// A detector failed while running.
    public static let detectionFailed = ErrorCode(rawValue: "detection.failed")
    /// Something failed that should not have; the detail says what.
    public static let internalFailure = ErrorCode(rawValue: "internal.failure")

    /// Every code the library and the layers under it make, in one list (a test checks it against
    /// the declarations above). The server declares its own (`FocalServer`'s `ErrorCode.server`),
    /// and gives every code a deliberate HTTP status (`ErrorStatus`).
    public static let all: [ErrorCode] = [
        .requestInvalid, .inputEmpty, .inputTooLarge, .inputTooManyPixels, .inputExtremeAspect, .inputTooCostly, .inputTooManyFrames,
        .inputTimeout,
        .inputNotAnImage, .inputUnsupported, .inputCorrupt, .inputNotFound, .inputNotAFile, .inputUnreadable, .outputTooLarge,
        .outputEncodeFailed, .outputWriteFailed, .fetchInvalidURL, .fetchNotAllowed, .fetchAddressRefused, .fetchConnection,
        .fetchTimeout, .fetchTooLarge, .fetchRedirects, .fetchStatus, .fetchNotAnImage, .storageInvalidAddress, .storageNotAllowed,
        .storageNotConfigured, .storageNotFound, .storageRefused, .storageUnavailable, .storageTooLarge, .serverOverloaded, .modelsMissing,
        .modelsInvalid, .detectionFailed, .internalFailure,
    ]
}
