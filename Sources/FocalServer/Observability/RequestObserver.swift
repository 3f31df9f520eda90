import Focal
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The outermost middleware: gives each request an id, turns every error into its JSON response
/// (`ErrorResponse`), and when the response is ready writes one structured log line (method, path
/// without its signature, status, bytes, duration, strategy, cache origin, request id) and
/// records the request's metrics.
struct RequestObserver<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let id = request.headers[.requestID].flatMap(Self.validID) ?? Self.newID()
        metrics.started()
        var response: Response
        var failure: (any Error)?
        do {
            response = try await next(request, context)
        } catch {
            failure = error
            response = ErrorResponse.response(for: error)
        }
        response.headers[.requestID] = id
        let duration = ContinuousClock.now - started
        let path = Self.loggable(request.uri.path)
        let route = Self.route(endpoint: context.endpointPath)
        metrics.finished(route: route, status: response.status.code, duration: duration)
        var metadata: Logger.Metadata = [
            "request_id": .string(id), "method": .string(request.method.rawValue), "path": .string(path),
            "route": .string(route), "status": .stringConvertible(response.status.code),
            "bytes": .stringConvertible(response.body.contentLength ?? 0),
            "duration_ms": .stringConvertible((Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
                .rounded(toPlaces: 2)),
        ]
        if let strategy = response.headers[.focalStrategy] { metadata["strategy"] = .string(strategy) }
        if let origin = response.headers[.focalOrigin] { metadata["origin"] = .string(origin) }
        if let failure {
            let (_, code, _) = ErrorResponse.describe(failure)
            metadata["code"] = .string(code.rawValue)
            metadata["error"] = .string(Self.bounded(Self.withoutCredentials((failure as? any FocalError)?.detail ?? "\(failure)"), 1024))
        }
        // A client that went away is not the server's failure, nor a refusal for capacity.
        let capacity = failure.map { [.serverAnswersFull, .serverOverloaded].contains(ErrorResponse.describe($0).code) } ?? false
        let level: Logger.Level = failure == nil || response.status.code < 500 ? .info : capacity ? .notice : .error
        logger.log(level: level, "request", metadata: metadata)
        return response
    }

    /// A client's request id when it is one that is safe to echo and log: 1 to 64 letters,
    /// digits, `-`, `_`, `.` or `:`; nil otherwise (a new id is made).
    static func validID(_ text: String) -> String? {
        let utf8 = text.utf8
        guard (1...64).contains(utf8.count),
            utf8.allSatisfy({ (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || [45, 95, 46, 58].contains($0) })
        else { return nil }
        return text
    }

    /// `text` cut to at most `limit` characters (marked with `…` and the length it had).
    static func bounded(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.utf8.count) bytes)"
    }

    /// `text` with the user and password of every URL in it removed (`http://user:secret@host/`
    /// becomes `http://host/`), percent-encoded or not.
    static func withoutCredentials(_ text: String) -> String {
        guard text.contains("@") || text.lowercased().contains("%40") else { return text }
        // A URL in a path may be percent-encoded: judged (and logged) decoded.
        let text = text.lowercased().contains("%3a%2f%2f") ? (text.removingPercentEncoding ?? text) : text
        var out = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            out += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let authorityEnd = rest.firstIndex(where: { "/?#".contains($0) || $0 == " " }) ?? rest.endIndex
            let authority = rest[..<authorityEnd]
            if let at = authority.range(of: "@", options: .backwards) ?? authority.range(of: "%40", options: [.backwards, .caseInsensitive]) {
                out += "***@" + authority[at.upperBound...]
            } else {
                out += authority
            }
            rest = rest[authorityEnd...]
        }
        return out + rest
    }

    /// A short random request id.
    static func newID() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The path as logged: its URL signature replaced by `~` (logs do not hand out signed URLs),
    /// credentials in a source URL removed, and at most 512 characters.
    static func loggable(_ path: String) -> String {
        bounded(withoutCredentials(unsigned(path)), 512)
    }

    static func unsigned(_ path: String) -> String {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return path }
        let rest = String(parts[1])
        guard let slash = rest.firstIndex(of: "/") else { return path }
        let first = rest[..<slash]
        if first == "unsafe" || first == "v1" || first.isEmpty { return path }
        return "/~" + rest[slash...]
    }

    /// The route of a request, for metrics and logs: the path of the route the router matched
    /// (`/v1/plan`, `/v1/images/{id}/overrides/{aspect}`, `/**` for an image or `meta/` in
    /// thumbor's grammar), so that every route is labelled by itself with nothing to keep in step; `unmatched`
    /// when none matched.
    static func route(endpoint: String?) -> String {
        guard let endpoint, endpoint != "NotFound" else { return "unmatched" }
        return endpoint
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}

extension HTTPField.Name {
    /// The request id, echoed back and logged.
    static var requestID: Self { Self("X-Request-Id")! }
    /// The strategy that decided the crop.
    static var focalStrategy: Self { Self("X-Focal-Strategy")! }
    /// Where the result came from: fresh, memory, disk.
    static var focalOrigin: Self { Self("X-Focal-Origin")! }
    /// An error's code, for a cache in front to tell errors apart without reading the body.
    static var focalError: Self { Self("X-Focal-Error")! }
}
