import Logging
import ServiceLifecycle
import Synchronization

/// Runs the application as a service whose graceful shutdown ends within `bound` whatever
/// clients do: past it, every connection still open is closed (`ConnectionRegistry.closeAll`),
/// so a client that sends one byte a minute, or never reads its answer, cannot keep the process
/// alive.
struct BoundedShutdown<App: Service>: Service {
    let app: App
    let bound: Duration
    let connections: ConnectionRegistry
    let logger: Logger

    func run() async throws {
        let watchdog = Mutex<Task<Void, Never>?>(nil)
        defer { watchdog.withLock { $0?.cancel() } }
        let (bound, connections, logger) = (bound, connections, logger)
        try await withGracefulShutdownHandler {
            try await app.run()
        } onGracefulShutdown: {
            logger.info("shutting down: finishing the requests in flight", metadata: ["open_connections": .stringConvertible(connections.open)])
            let task = Task {
                try? await Task.sleep(for: bound)
                guard !Task.isCancelled else { return }
                logger.warning(
                    "shutdown bound reached: closing the connections still open",
                    metadata: ["open_connections": .stringConvertible(connections.open), "bound": .string("\(bound)")])
                connections.closeAll()
            }
            watchdog.withLock { $0 = task }
        }
    }
}
