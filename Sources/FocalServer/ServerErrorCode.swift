public import Focal

/// The codes only the server makes: its URLs and signatures, tokens, connections, the answers'
/// memory, its stores and readiness. The library's are in `ErrorCode.all`.
extension ErrorCode {
    /// A URL written another way than the one Focal accepts (a percent-encoded signature, a
    /// number with a leading zero, a filter given twice): one meaning has one URL.
    public static let requestNotCanonical = ErrorCode(rawValue: "request.not_canonical")
    /// A signed URL's signature does not verify with any key.
    public static let requestBadSignature = ErrorCode(rawValue: "request.bad_signature")
    /// An `unsafe/` URL, and the service does not serve them.
    public static let requestUnsafeRefused = ErrorCode(rawValue: "request.unsafe_refused")
    /// An image URL that uses no preset (or a filter the operator does not allow beside one), on a
    /// server that serves presets only (`--presets-only`).
    public static let requestPresetRequired = ErrorCode(rawValue: "request.preset_required")
    /// A write without the bearer token, or with a wrong one.
    public static let requestUnauthorized = ErrorCode(rawValue: "request.unauthorized")
    /// No such route, image or override.
    public static let requestNotFound = ErrorCode(rawValue: "request.not_found")
    /// The request body is larger than the body limit.
    public static let requestTooLarge = ErrorCode(rawValue: "request.too_large")
    /// A URL whose `expire(…)` time has passed.
    public static let requestExpired = ErrorCode(rawValue: "request.expired")
    /// A conditional write whose `If-Match` names a revision that is no longer current.
    public static let requestPreconditionFailed = ErrorCode(rawValue: "request.precondition_failed")
    /// A client sent its request head or body too slowly (the connection's deadlines).
    public static let requestTimeout = ErrorCode(rawValue: "request.timeout")
    /// The client went away before its answer was ready (logged; never sent).
    public static let clientAborted = ErrorCode(rawValue: "client.aborted")
    /// The answers being sent hold their whole memory budget; try again shortly.
    public static let serverAnswersFull = ErrorCode(rawValue: "server.answers_full")
    /// The request took longer than the request timeout.
    public static let serverTimeout = ErrorCode(rawValue: "server.timeout")
    /// The service is not ready (models not loaded, shutting down).
    public static let serverNotReady = ErrorCode(rawValue: "server.not_ready")
    /// A store the service depends on (the overrides database) failed.
    public static let serverStorage = ErrorCode(rawValue: "server.storage")

    /// Every code only the server makes, in one list (a test checks it against the declarations above).
    public static let server: [ErrorCode] = [
        .requestNotCanonical, .requestBadSignature, .requestUnsafeRefused, .requestPresetRequired, .requestUnauthorized, .requestNotFound, .requestTooLarge,
        .requestPreconditionFailed, .requestExpired, .requestTimeout, .clientAborted, .serverAnswersFull, .serverTimeout, .serverNotReady, .serverStorage,
    ]
}
