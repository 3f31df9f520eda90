import Hummingbird

extension FocalService {
    /// The web page and its scripts, `<focal-img>` among them (`WebAssets`).
    var pageRoutes: RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        let assets = WebAssets()
        routes.get("/") { request, _ in try assets.response("index.html", request: request) }
        routes.get("/favicon.ico") { request, _ in try assets.response("favicon.ico", request: request) }
        for name in assets.files.keys.sorted() where name != "index.html" {
            routes.get(RouterPath(stringLiteral: "/" + name)) { request, _ in try assets.response(name, request: request) }
        }
        return routes
    }
}
