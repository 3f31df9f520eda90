import Focal
import FocalServer
import FocalTestSupport
import Foundation
import Logging

/// Stores besides SQLite that the store suite also runs against: PostgreSQL, on a server of its
/// own started for the test (and stopped by the returned cleanup).
func extraStores() async throws -> [(String, any OverrideStore, () -> Void)] {
    let server = try await PostgresServer.start(port: try FreePort.pick())
    var logger = Logger(label: "focal-tests.postgres")
    logger.logLevel = .error
    let store = try PostgresOverrideStore(url: server.url, logger: logger)
    return [("postgres", store, { server.stop() })]
}
