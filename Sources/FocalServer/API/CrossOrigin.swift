import HTTPTypes
import Hummingbird

/// Lets pages on any site show Focal's images and call its API (writes still need the token, and
/// no cookie is ever involved): `Access-Control-Allow-Origin: *` on every response, the headers
/// `<focal-img>` reads exposed, and preflight requests answered.
struct CrossOrigin<Context: RequestContext>: RouterMiddleware {
    static var exposed: String { "ETag, X-Focal-Plan, X-Focal-Strategy, X-Focal-Origin, X-Request-Id, Retry-After" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: "*", .accessControlAllowMethods: "GET, HEAD, POST, PUT, DELETE, OPTIONS",
                .accessControlAllowHeaders: "Accept, Authorization, Content-Type, If-Match, If-None-Match",
                .accessControlMaxAge: "3600", .accessControlExposeHeaders: Self.exposed,
            ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = "*"
        response.headers[.accessControlExposeHeaders] = Self.exposed
        return response
    }
}
