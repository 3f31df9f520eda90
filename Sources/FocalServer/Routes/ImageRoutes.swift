import Hummingbird

extension FocalService {
    /// `/v1/images`: uploads (a write) and originals.
    /// - Parameter writes: The collection whose routes pass the write authorization.
    func imageRoutes(writes: RouteCollection<FocalRequestContext>) -> RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        writes.post("/v1/images") { request, _ in try await self.upload(request) }
        routes.get("/v1/images/:id") { request, context in
            try await self.original(request, id: context.parameters.get("id") ?? "", context: context)
        }
        return routes
    }
}
