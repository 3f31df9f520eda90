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
        let id = request.headers[.requestID] ?? Self.newID()
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
        let route = Self.route(request.uri.path)
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
            metadata["error"] = .string((failure as? any FocalError)?.detail ?? "\(failure)")
        }
        logger.log(level: failure == nil || response.status.code < 500 ? .info : .error, "request", metadata: metadata)
        return response
    }

    /// A short random request id.
    static func newID() -> String {
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The path with a URL signature replaced by `~`, so that logs do not hand out signed URLs.
    static func loggable(_ path: String) -> String {
        let parts = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return path }
        let rest = String(parts[1])
        guard let slash = rest.firstIndex(of: "/") else { return path }
        let first = rest[..<slash]
        if first == "unsafe" || first == "v1" || first.isEmpty { return path }
        return "/~" + rest[slash...]
    }

    /// The route family of a path, for metrics.
    static func route(_ path: String) -> String {
        switch path {
        case "/healthz": return "healthz"
        case "/readyz": return "readyz"
        case "/metrics": return "metrics"
        case "/", "/index.html": return "page"
        default:
            if path.hasPrefix("/v1/plan") { return "plan" }
            if path.hasPrefix("/v1/detect") { return "detect" }
            if path.hasPrefix("/v1/images"), path.contains("/overrides") { return "overrides" }
            if path.hasPrefix("/v1/") { return "images" }
            if path.hasPrefix("/assets/") || path.hasSuffix(".js") || path.hasSuffix(".css") { return "asset" }
            return path.contains("/meta/") ? "meta" : "image"
        }
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
