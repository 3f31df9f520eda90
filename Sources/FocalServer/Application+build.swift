import Focal
public import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

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
    return try await buildApplication(service: service)
}

/// Builds the HTTP application of a service (see `buildApplication(configuration:logger:)`).
func buildApplication(service: FocalService) async throws -> some ApplicationProtocol & Service {
    let configuration = service.configuration
    let logger = service.logger
    await service.prepare()
    let router = buildRouter(service)
    let cap = configuration.requests.connectionCap(descriptors: FileDescriptors.raiseSoftLimit())
    let server = ApplicationConfiguration(
        address: .hostname(configuration.host, port: configuration.port), serverName: "Focal",
        availableConnectionsDelegate: ConnectionCap(limit: cap, logger: logger, registry: service.connections))
    let requests = configuration.requests
    let upload = min(configuration.maxBodyBytes, configuration.pipeline.limits.maxInputBytes)
    let registry = service.connections
    let flush = configuration.requestTimeout
    return Application(
        router: router,
        server: .http1(configuration: .init(
            additionalChannelHandlers: [
                ExpectContinue(), RequestGuard(limits: requests, maxUploadBytes: upload, flushTimeout: flush, registry: registry),
            ],
            idleTimeout: .seconds(75))),
        configuration: server, logger: logger)
}

/// Runs `focal serve` until SIGTERM or SIGINT, then shuts down gracefully within a bound: new
/// connections stop, requests in flight finish and their responses are written out, and
/// whatever is still open `requestTimeout + 5 s` after the signal is closed (a request still
/// sending its body then is cut off: it could not have been answered in time anyway).
/// - Parameters:
///   - configuration: The service's settings.
///   - logger: Where request lines and start-up messages go.
/// - Throws: `ServerError` for a root or data folder that cannot be used; what the server throws.
public func runServer(configuration: ServerConfiguration, logger: Logger) async throws {
    let service = try FocalService(configuration: configuration, logger: logger)
    let app = try await buildApplication(service: service)
    let bound = configuration.requestTimeout + .seconds(5)
    let group = ServiceGroup(configuration: .init(
        services: [BoundedShutdown(app: app, bound: bound, connections: service.connections, logger: logger)],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
}

/// The routes of a service.
/// - Parameter service: The service the routes call.
/// - Returns: A router for `FocalRequestContext`.
public func buildRouter(_ service: FocalService) -> Router<FocalRequestContext> {
    let router = Router(context: FocalRequestContext.self, options: .autoGenerateHeadEndpoints)
    router.add(middleware: SecurityHeaders())
    // Any site may show Focal's images and call its API; writes still need the token.
    router.add(middleware: CrossOrigin())
    router.add(middleware: RequestObserver(logger: service.logger, metrics: service.metrics))

    router.get("/healthz") { _, _ in service.json(["status": "alive"]) }
    router.get("/readyz") { _, _ -> Response in
        guard service.isReady else { throw ServerError(.serverNotReady, "the service is not ready") }
        return service.json(["status": "ready"])
    }
    if service.configuration.metrics {
        router.get("/metrics") { _, context -> Response in
            // Only the networks allowed (loopback by default): anyone else is told nothing is here.
            guard let peer = context.remoteAddress?.ipAddress.flatMap({ IPAddress($0) }),
                service.configuration.metricsNetworks.contains(where: { $0.contains(peer) })
            else { throw ServerError(.requestNotFound, "no such route") }
            service.metrics.update(from: service.pipeline.statistics, connections: service.connections)
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: service.metrics.exposition())))
        }
    }

    router.post("/v1/plan") { request, _ in try await service.plan(request) }
    router.post("/v1/detect") { request, _ in try await service.detect(request) }
    // Writes: one group, behind the token.
    let writes = router.group().add(middleware: WriteAuthorization(authorization: service.authorization))
    writes.post("/v1/images") { request, _ in try await service.upload(request) }
    router.get("/v1/images/:id") { request, context in
        try await service.original(request, id: context.parameters.get("id") ?? "", context: context)
    }
    router.get("/v1/images/:id/overrides") { request, context in
        try service.authorizeRead(request)
        return try await service.listOverrides(id: context.parameters.get("id") ?? "")
    }
    router.get("/v1/images/:id/overrides/:aspect") { request, context in
        try service.authorizeRead(request)
        return try await service.getOverride(id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    writes.put("/v1/images/:id/overrides/:aspect") { request, context in
        try await service.putOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    writes.delete("/v1/images/:id/overrides/:aspect") { request, context in
        try await service.deleteOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
    }
    router.get("/v1/photos") { request, _ in try await service.photos(request) }

    router.get("/v1/config") { _, _ in service.json(service.clientConfiguration) }
    writes.post("/v1/sign") { request, _ in try await service.sign(request) }

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
