import Hummingbird

extension FocalService {
    /// The web page and its scripts, `<focal-img>` among them (`WebAssets`).
    var pageRoutes: RouteCollection<FocalRequestContext> {
        let routes = RouteCollection(context: FocalRequestContext.self)
        let assets = WebAssets.shared
        routes.get("/") { request, _ in try assets.response("index.html", request: request) }
        routes.get("/favicon.ico") { request, _ in try assets.response("favicon.ico", request: request) }
        for name in assets.files.keys.sorted() where name != "index.html" {
            routes.get(RouterPath(stringLiteral: "/" + name)) { request, _ in try assets.response(name, request: request) }
        }
        // Versioned names, for pages that cache the element for good (`WebAssets`).
        for (versioned, name) in assets.versionedNames.sorted(by: { $0.key < $1.key }) {
            routes.get(RouterPath(stringLiteral: "/" + versioned)) { request, _ in
                try assets.response(name, request: request, immutable: true)
            }
        }
        return routes
    }
}
