import Hummingbird

extension FocalService {
    /// `/v1/images/{id}/overrides[/{aspect}]`: reads, and writes (`PUT`, `DELETE`) through `writes`.
    /// - Parameter writes: The collection whose routes pass the write authorization.
    func savedCropRoutes(writes: RouteCollection<FocalRequestContext>) -> RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        routes.get("/v1/images/:id/overrides") { request, context in
            try self.authorizeRead(request)
            return try await self.listOverrides(id: context.parameters.get("id") ?? "")
        }
        routes.get("/v1/images/:id/overrides/:aspect") { request, context in
            try self.authorizeRead(request)
            return try await self.getOverride(id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
        writes.put("/v1/images/:id/overrides/:aspect") { request, context in
            try await self.putOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
        writes.delete("/v1/images/:id/overrides/:aspect") { request, context in
            try await self.deleteOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
        return routes
    }
}
