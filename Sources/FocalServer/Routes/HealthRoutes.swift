import Focal
import Hummingbird
import NIOCore

/// `/readyz`'s answer: `ready`, or `degraded` with what is missing.
struct ReadyDocument: Encodable {
    let status: String
    let degraded: [String: String]?
}

extension FocalService {
    /// `/healthz`, `/readyz` and (when metrics are on) `/metrics`, which answers only the
    /// networks `metricsNetworks` allows (loopback by default); anyone else is told nothing is here.
    var healthRoutes: RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        routes.get("/healthz") { _, _ in self.json(["status": "alive"]) }
        routes.get("/readyz") { _, _ -> Response in
            let readiness = self.readiness()
            guard readiness.isReady else {
                throw ServerError(.serverNotReady, "the service is not ready: " + readiness.problems.joined(separator: "; "))
            }
            guard readiness.degraded.isEmpty else { return self.json(ReadyDocument(status: "degraded", degraded: readiness.degraded)) }
            return self.json(ReadyDocument(status: "ready", degraded: nil))
        }
        if configuration.metrics {
            routes.get("/metrics") { _, context -> Response in
                guard let peer = context.remoteAddress?.ipAddress.flatMap({ IPAddress($0) }),
                    self.configuration.metricsNetworks.contains(where: { $0.contains(peer) })
                else { throw ServerError(.requestNotFound, "no such route") }
                self.metrics.update(from: self.pipeline.statistics, connections: self.connections, answers: self.answers, savedCrops: self.savedCrops)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
            }
        }
        return routes
    }
}
