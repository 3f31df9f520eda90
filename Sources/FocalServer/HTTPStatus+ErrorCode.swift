public import Focal
public import HTTPTypes

extension HTTPResponse.Status {
    /// The status every error code is answered with, in one place:
    /// 400 malformed, 401 no token, 403 signature, 404 missing or not allowed, 408 sent too slowly,
    /// 412 stale write, 499 (logged only) client gone,
    /// 413 too large, 415 not a supported image, 422 over a pixel or cost limit or corrupt,
    /// 429 overloaded, 502 fetch failed, 503 not ready or too slow, 504 fetch timeout.
    public init(for code: ErrorCode) {
        switch code {
        case .requestInvalid, .requestNotCanonical, .inputEmpty: self = .badRequest
        case .requestUnauthorized: self = .unauthorized
        case .requestBadSignature, .requestUnsafeRefused: self = .forbidden
        case .requestNotFound, .inputNotFound, .inputNotAFile, .fetchNotAllowed, .fetchAddressRefused: self = .notFound
        case .requestPreconditionFailed: self = .preconditionFailed
        case .requestTimeout: self = .requestTimeout
        // Never sent: the client has gone. nginx's 499 in logs and metrics.
        case .clientAborted: self = .init(code: 499, reasonPhrase: "Client Closed Request")
        case .requestTooLarge, .inputTooLarge, .fetchTooLarge: self = .contentTooLarge
        case .inputNotAnImage, .inputUnsupported, .fetchNotAnImage: self = .unsupportedMediaType
        case .inputTooManyPixels, .inputExtremeAspect, .inputTooCostly, .inputCorrupt, .inputTimeout, .outputTooLarge:
            self = .unprocessableContent
        case .serverOverloaded: self = .tooManyRequests
        case .fetchInvalidURL: self = .badRequest
        case .fetchConnection, .fetchRedirects, .fetchStatus: self = .badGateway
        case .fetchTimeout: self = .gatewayTimeout
        case .serverTimeout, .serverNotReady, .serverAnswersFull, .modelsMissing, .modelsInvalid, .serverStorage: self = .serviceUnavailable
        // The server's own failures: an input it read but could not handle, an output it could not
        // make, a detector that failed.
        case .inputUnreadable, .outputEncodeFailed, .outputWriteFailed, .detectionFailed, .internalFailure: self = .internalServerError
        // A code this build does not know (never made by Focal itself).
        default: self = .internalServerError
        }
    }
}
