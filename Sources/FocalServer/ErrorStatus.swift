public import Focal
public import HTTPTypes

/// The HTTP status of every error code, in one table: 400 malformed, 401 no token, 403 signature,
/// 404 missing or not allowed, 408 sent too slowly, 412 stale write, 413 too large, 415 not a
/// supported image, 422 over a pixel or cost limit or corrupt, 429 overloaded, 499 (logged only)
/// client gone, 500 the server's own failures, 502 fetch failed, 503 not ready or too slow, 504
/// fetch timeout. The table of errors in `docs/http-api.md` is written from it (`GeneratedRegion`).
///
/// A new code is its declaration (`ErrorCode`, or `ErrorCode.server` for the server's own) and
/// its row here.
public struct ErrorStatus: Sendable {
    /// The code.
    public let code: ErrorCode
    /// The status it is answered with.
    public let status: HTTPResponse.Status
    /// What the table of errors (`docs/http-api.md`) says of it beside its name, if anything.
    public let note: String?

    init(_ code: ErrorCode, _ status: HTTPResponse.Status, _ note: String? = nil) {
        self.code = code
        self.status = status
        self.note = note
    }

    /// Every code's row, in the order of the table of errors within each status.
    public static let table: [ErrorStatus] = [
        ErrorStatus(.requestInvalid, .badRequest, "malformed URL, filter, option or JSON"),
        ErrorStatus(.requestNotCanonical, .badRequest, "a signed URL written another way than [the one Focal accepts](limits.md#security)"),
        ErrorStatus(.inputEmpty, .badRequest),
        ErrorStatus(.fetchInvalidURL, .badRequest),
        ErrorStatus(.storageInvalidAddress, .badRequest),
        ErrorStatus(.storageNotConfigured, .badRequest),
        ErrorStatus(
            .requestUnauthorized, .unauthorized,
            "a write without the token; on a signed-only server, a read of the API without the token or a request signature"),
        ErrorStatus(.requestBadSignature, .forbidden),
        ErrorStatus(.requestUnsafeRefused, .forbidden),
        ErrorStatus(.requestPresetRequired, .forbidden),
        ErrorStatus(.inputNotFound, .notFound),
        ErrorStatus(.inputNotAFile, .notFound),
        ErrorStatus(.requestNotFound, .notFound),
        ErrorStatus(.fetchNotAllowed, .notFound),
        ErrorStatus(.fetchAddressRefused, .notFound),
        ErrorStatus(.storageNotFound, .notFound),
        ErrorStatus(.storageNotAllowed, .notFound),
        ErrorStatus(.requestTimeout, .requestTimeout, "no whole request head within `--header-timeout`; the connection is closed"),
        ErrorStatus(.requestExpired, .gone, "a URL whose `expire(…)` time has passed"),
        ErrorStatus(.requestPreconditionFailed, .preconditionFailed, "a saved crop changed since `If-Match`"),
        ErrorStatus(.inputTooLarge, .contentTooLarge),
        ErrorStatus(.fetchTooLarge, .contentTooLarge),
        ErrorStatus(.storageTooLarge, .contentTooLarge),
        ErrorStatus(.requestTooLarge, .contentTooLarge),
        ErrorStatus(.inputNotAnImage, .unsupportedMediaType),
        ErrorStatus(.inputUnsupported, .unsupportedMediaType),
        ErrorStatus(.fetchNotAnImage, .unsupportedMediaType),
        ErrorStatus(.inputTooManyPixels, .unprocessableContent),
        ErrorStatus(.inputExtremeAspect, .unprocessableContent),
        ErrorStatus(.inputTooCostly, .unprocessableContent),
        ErrorStatus(.inputTooManyFrames, .unprocessableContent),
        ErrorStatus(.inputCorrupt, .unprocessableContent),
        ErrorStatus(.inputTimeout, .unprocessableContent),
        ErrorStatus(.outputTooLarge, .unprocessableContent),
        ErrorStatus(.serverOverloaded, .tooManyRequests),
        // Never sent: the client has gone. nginx's 499 in logs and metrics.
        ErrorStatus(.clientAborted, .init(code: 499, reasonPhrase: "Client Closed Request")),
        ErrorStatus(.internalFailure, .internalServerError),
        ErrorStatus(.detectionFailed, .internalServerError),
        ErrorStatus(.inputUnreadable, .internalServerError),
        ErrorStatus(.outputEncodeFailed, .internalServerError),
        ErrorStatus(.outputWriteFailed, .internalServerError),
        ErrorStatus(.fetchConnection, .badGateway),
        ErrorStatus(.fetchRedirects, .badGateway),
        ErrorStatus(.fetchStatus, .badGateway),
        ErrorStatus(.storageRefused, .badGateway, "the object storage refused the server's request (credentials, permissions, bucket or endpoint); the log says why"),
        ErrorStatus(.serverTimeout, .serviceUnavailable),
        ErrorStatus(.serverNotReady, .serviceUnavailable),
        ErrorStatus(.serverStorage, .serviceUnavailable),
        ErrorStatus(.storageUnavailable, .serviceUnavailable),
        ErrorStatus(.serverAnswersFull, .serviceUnavailable, "the image answers being sent hold `--answer-memory`"),
        ErrorStatus(.modelsMissing, .serviceUnavailable),
        ErrorStatus(.modelsInvalid, .serviceUnavailable),
        ErrorStatus(.fetchTimeout, .gatewayTimeout),
    ]

    /// What the table of errors adds after a status's codes.
    static let statusNotes: [Int: String] = [
        404: ", and a source that answered 404",
        429: ", with `Retry-After`, at once: more jobs than `--max-jobs`, jobs' memory past `--memory-budget`, or request bodies past `--body-memory`",
        500: ": the server's own failures (the log line has the detail)",
        503: ", with `Retry-After`",
    ]

    /// The status of each code, for lookups.
    static let statuses: [ErrorCode: HTTPResponse.Status] = Dictionary(table.map { ($0.code, $0.status) }, uniquingKeysWith: { first, _ in first })

    /// The table of errors (`docs/http-api.md`): one row per status sent (499 is never sent), its codes in
    /// table order with their notes.
    public static var markdownTable: String {
        var lines = ["| status | codes |", "|---|---|"]
        for status in Set(table.map(\.status.code)).sorted() where status != 499 {
            let codes = table.filter { $0.status.code == status }.map { row in
                "`\(row.code.rawValue)`" + (row.note.map { " (\($0))" } ?? "")
            }
            lines.append("| \(status) | " + codes.joined(separator: ", ") + (statusNotes[status] ?? "") + " |")
        }
        return lines.joined(separator: "\n")
    }
}

extension HTTPResponse.Status {
    /// The status `code` is answered with (`ErrorStatus.table`); 500 for a code this build does
    /// not know (never made by Focal itself).
    public init(for code: ErrorCode) {
        self = ErrorStatus.statuses[code] ?? .internalServerError
    }
}
