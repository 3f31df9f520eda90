import Hummingbird

/// One resource of the service: it holds only the parts it needs and registers its own routes
/// (`FocalService.controllers`, `buildRouter`). Reads go to `routes`; writes, which need the
/// token, to `writes` (behind `WriteAuthorization`).
protocol Controller: Sendable {
    /// Adds the controller's routes.
    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>)
}
