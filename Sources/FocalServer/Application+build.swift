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
    router.add(middleware: CrossOrigin(timingAllowOrigin: service.configuration.timingAllowOrigin))
    router.add(middleware: RequestObserver(logger: service.logger, metrics: service.metrics))
    // Each client's work in a lane of its own: a flood from one client leaves the rest to others.
    router.add(middleware: ClientLanes(trustedProxies: service.configuration.trustedProxies))

    // Writes: one collection behind the write authorization (the token).
    let writes = RouteCollection(context: FocalRequestContext.self).add(middleware: WriteAuthorization(authorization: service.authorization))
    for controller in service.controllers {
        let routes = RouteCollection(context: FocalRequestContext.self)
        controller.addRoutes(to: routes, writes: writes)
        router.addRoutes(routes)
    }
    router.addRoutes(writes)
    return router
}
