import Focal
public import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle

/// The context every route sees.
public typealias FocalRequestContext = BasicRequestContext

/// Builds the HTTP application: routes, middleware, the pipeline and its models. Tests build it
/// and drive it without a socket (`app.test(.router)`) or on a live port (`.live`); `focal serve`
/// runs it with graceful shutdown on SIGTERM and SIGINT (stop accepting, finish what is in flight).
/// - Parameters:
///   - configuration: The service's settings.
///   - logger: Where request lines and start-up messages go.
/// - Returns: The application, ready to run, its models loaded.
/// - Throws: `ServerError` for a root or data folder that cannot be used.
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger
) async throws -> some ApplicationProtocol {
    let service = try FocalService(configuration: configuration, logger: logger)
    await service.prepare()
    let router = buildRouter(service)
    let server = ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "Focal")
    return Application(
        router: router,
        server: .http1(configuration: .init(additionalChannelHandlers: [ExpectContinue()], idleTimeout: .seconds(75))),
        configuration: server, logger: logger)
}

/// The routes of a service.
/// - Parameter service: The service the routes call.
/// - Returns: A router for `FocalRequestContext`.
public func buildRouter(_ service: FocalService) -> Router<FocalRequestContext> {
    let router = Router(context: FocalRequestContext.self, options: .autoGenerateHeadEndpoints)
    // Any site may show Focal's images and call its API; writes still need the token.
    router.add(middleware: CrossOrigin())
    router.add(middleware: RequestObserver(logger: service.logger, metrics: service.metrics))

    router.get("/healthz") { _, _ in service.json(["status": "alive"]) }
    router.get("/readyz") { _, _ -> Response in
        guard service.isReady else { throw ServerError(.serverNotReady, "the service is not ready") }
        return service.json(["status": "ready"])
    }
    if service.configuration.metrics {
        router.get("/metrics") { _, _ -> Response in
            service.metrics.update(from: service.pipeline.statistics)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: service.metrics.exposition())))
        }
    }

    router.post("/v1/plan") { request, _ in try await service.plan(request) }
    router.post("/v1/detect") { request, _ in try await service.detect(request) }
    router.post("/v1/images") { request, _ in try await service.upload(request) }
    router.get("/v1/images/:id") { _, context in try await service.original(id: context.parameters.get("id") ?? "") }
    router.get("/v1/images/:id/overrides") { _, context in try await service.listOverrides(id: context.parameters.get("id") ?? "") }
    router.get("/v1/images/:id/overrides/:aspect") { _, context in
        try await service.getOverride(id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    router.put("/v1/images/:id/overrides/:aspect") { request, context in
        try await service.putOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    router.delete("/v1/images/:id/overrides/:aspect") { request, context in
        try await service.deleteOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    router.get("/v1/photos") { _, _ in await service.photos() }

    router.get("/v1/config") { _, _ in service.json(service.clientConfiguration) }
    router.post("/v1/sign") { request, _ in try await service.sign(request) }

    // The web page and its scripts.
    let assets = WebAssets()
    router.get("/") { request, _ in try assets.response("index.html", request: request) }
    router.get("/favicon.ico") { request, _ in try assets.response("favicon.ico", request: request) }
    for name in assets.files.keys.sorted() where name != "index.html" {
        router.get(RouterPath(stringLiteral: "/" + name)) { request, _ in try assets.response(name, request: request) }
    }

    // Everything else is an image URL in thumbor's grammar.
    router.get("**") { request, _ in try await service.image(request) }
    return router
}
