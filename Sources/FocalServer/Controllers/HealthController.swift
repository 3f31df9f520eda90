import Focal
import Hummingbird
import NIOCore

/// `/readyz`'s answer: `ready`, or `degraded` with what is missing.
struct ReadyDocument: Encodable {
    let status: String
    let degraded: [String: String]?
}

/// `/healthz`, `/readyz` (the last readiness check, `Readiness`) and, when metrics are on,
/// `/metrics`, which answers only the networks `metricsNetworks` allows (loopback by default);
/// anyone else is told nothing is here.
struct HealthController: Controller {
    let configuration: ServerConfiguration
    let metrics: ServerMetrics
    /// The last readiness check.
    let readiness: @Sendable () -> Readiness
    /// Brings the gauges and counters up to date before a scrape.
    let refreshMetrics: @Sendable () -> Void

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        routes.get("/healthz") { _, _ in JSONAnswer.make(["status": "alive"]) }
        routes.get("/readyz") { _, _ -> Response in
            let readiness = readiness()
            guard readiness.isReady else {
                throw ServerError(.serverNotReady, "the service is not ready: " + readiness.problems.joined(separator: "; "))
            }
            guard readiness.degraded.isEmpty else { return JSONAnswer.make(ReadyDocument(status: "degraded", degraded: readiness.degraded)) }
            return JSONAnswer.make(ReadyDocument(status: "ready", degraded: nil))
        }
        guard configuration.metrics else { return }
        routes.get("/metrics") { _, context -> Response in
            guard let peer = context.remoteAddress?.ipAddress.flatMap({ IPAddress($0) }),
                configuration.metricsNetworks.contains(where: { $0.contains(peer) })
            else { throw ServerError(.requestNotFound, "no such route") }
            refreshMetrics()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
    }
}
