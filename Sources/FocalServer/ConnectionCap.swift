import Hummingbird
import HummingbirdCore
import Logging

/// The most connections `focal serve` keeps open (`RequestLimits.maxConnections`). At the cap
/// the server stops accepting: new connections wait in the listen backlog until one closes, and
/// the system refuses them once the backlog is full. Nothing spins on `accept`, and reaching the
/// cap (and leaving it) is logged once each time.
struct ConnectionCap: AvailableConnectionsDelegate {
    let limit: Int
    let logger: Logger
    private var count = 0
    private var full = false

    /// Creates the cap.
    /// - Parameters:
    ///   - limit: Connections at once (at least 1).
    ///   - logger: Where reaching the cap is logged.
    init(limit: Int, logger: Logger) {
        self.limit = max(1, limit)
        self.logger = logger
    }

    mutating func connectionOpened() {
        count += 1
        if count >= limit, !full {
            full = true
            logger.warning(
                "connection limit reached: new connections wait in the backlog",
                metadata: ["connections": .stringConvertible(count), "limit": .stringConvertible(limit)])
        }
    }

    mutating func connectionClosed() {
        count = max(0, count - 1)
        if full, count < limit {
            full = false
            logger.notice("accepting connections again", metadata: ["connections": .stringConvertible(count)])
        }
    }

    func isAcceptingNewConnections() -> Bool { count < limit }
}
