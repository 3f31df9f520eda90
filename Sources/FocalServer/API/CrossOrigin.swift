import HTTPTypes
import Hummingbird

/// Lets pages on any site show Focal's images and call its API (writes still need the token, and
/// no cookie is ever involved): `Access-Control-Allow-Origin: *` on every response, the headers
/// `<focal-img>` reads exposed, and preflight requests answered; `Timing-Allow-Origin` as configured,
/// so that a page's monitoring sees its images' timing and sizes.
struct CrossOrigin<Context: RequestContext>: RouterMiddleware {
    /// The `Timing-Allow-Origin` value; nil sends none.
    let timingAllowOrigin: String?

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
        if let timingAllowOrigin { response.headers[.timingAllowOrigin] = timingAllowOrigin }
        return response
    }
}

extension HTTPField.Name {
    /// Which origins may read an answer's timing and sizes (Resource Timing).
    static var timingAllowOrigin: Self { Self("Timing-Allow-Origin")! }
}
