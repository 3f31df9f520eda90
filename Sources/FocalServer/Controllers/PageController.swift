import Focal
import Hummingbird

/// The web page and its scripts, `<focal-img>` among them (`WebAssets`), under their names and
/// their versioned names, and `GET /v1/config`: what the page and clients need to know.
struct PageController: Controller {
    let configuration: ServerConfiguration
    let assets: WebAssets

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
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
        let document = ConfigDocument(configuration)
        routes.get("/v1/config") { _, _ in JSONAnswer.make(document) }
    }
}
