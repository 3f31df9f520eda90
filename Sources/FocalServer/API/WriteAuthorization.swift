import Hummingbird

/// The middleware in front of every write (uploads, saved crops, signing): the request needs
/// the token (`Authorization.check`), else it is answered 401 before any handler runs. Routes
/// are writes by being added to the group it guards, never by remembering a call.
struct WriteAuthorization<Context: RequestContext>: RouterMiddleware {
    let authorization: Authorization

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try authorization.check(request)
        return try await next(request, context)
    }
}
