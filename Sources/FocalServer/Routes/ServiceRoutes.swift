import Hummingbird

extension FocalService {
    /// `/v1/photos`, `/v1/config`, `/v1/page-urls` (public photos' page URLs, signed for anyone),
    /// and `/v1/sign` (a write, through `writes`).
    /// - Parameter writes: The collection whose routes pass the write authorization.
    func serviceRoutes(writes: RouteCollection<FocalRequestContext>) -> RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        routes.get("/v1/photos") { request, _ in try await self.photos(request) }
        routes.get("/v1/config") { _, _ in self.json(self.clientConfiguration) }
        routes.post("/v1/page-urls") { request, _ in try await self.pageURLs(request) }
        writes.post("/v1/sign") { request, _ in try await self.sign(request) }
        return routes
    }
}
