import Hummingbird

extension FocalService {
    /// `POST /v1/plan` and `POST /v1/detect`: reads, signed on a signed-only server.
    var planRoutes: RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        routes.post("/v1/plan") { request, _ in try await self.plan(request) }
        routes.post("/v1/detect") { request, _ in try await self.detect(request) }
        return routes
    }
}
