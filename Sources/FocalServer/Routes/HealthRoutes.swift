import Focal
import Hummingbird
import NIOCore

extension FocalService {
    /// `/healthz`, `/readyz` and (when metrics are on) `/metrics`, which answers only the
    /// networks `metricsNetworks` allows (loopback by default); anyone else is told nothing is here.
    var healthRoutes: RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        routes.get("/healthz") { _, _ in self.json(["status": "alive"]) }
        routes.get("/readyz") { _, _ -> Response in
            guard self.isReady else { throw ServerError(.serverNotReady, "the service is not ready") }
            return self.json(["status": "ready"])
        }
        if configuration.metrics {
            routes.get("/metrics") { _, context -> Response in
                guard let peer = context.remoteAddress?.ipAddress.flatMap({ IPAddress($0) }),
                    self.configuration.metricsNetworks.contains(where: { $0.contains(peer) })
                else { throw ServerError(.requestNotFound, "no such route") }
                self.metrics.update(from: self.pipeline.statistics, connections: self.connections)
                return Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
            }
        }
        return routes
    }
}
