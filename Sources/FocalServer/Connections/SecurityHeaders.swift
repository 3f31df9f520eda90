import HTTPTypes
import Hummingbird

/// The outermost middleware: every answer carries `X-Content-Type-Options: nosniff`; the page
/// gets its Content-Security-Policy and everything else that has none (JSON, errors) the strict
/// one of images (`ImageHeaders`).
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        if response.headers[.contentSecurityPolicy] == nil {
            let html = response.headers[.contentType]?.hasPrefix("text/html") == true
            response.headers[.contentSecurityPolicy] = html ? ImageHeaders.pagePolicy : ImageHeaders.contentSecurityPolicy
        }
        return response
    }
}
