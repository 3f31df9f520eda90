import Hummingbird
import HummingbirdCore
import Logging

/// The most connections `focal serve` keeps open (`RequestLimits.maxConnections`). Within a
/// 32nd of the cap (at least one), each new connection closes an idle one (idle for
/// `ConnectionRegistry.minimumIdle` at least) (one that never sent a
/// request, the oldest first; else the one idle the longest between requests), so a crowd of idle
/// connections cannot keep a new client out, nor push out a client that uses its connection. At
/// the cap the server stops accepting: new connections wait in the listen backlog until one
/// closes, and the system refuses them once it is full. Meanwhile every 200 ms up to a 32nd of the
/// cap of idle connections are closed, or when none is idle as many of those whose clients have
/// taken nothing of their answers for a second (`ConnectionRegistry.capReached`): slow readers cannot
/// hold the cap either.
/// Nothing spins on `accept`, and reaching the cap is logged (at most once every 10 s).
struct ConnectionCap: AvailableConnectionsDelegate {
    let limit: Int
    let logger: Logger
    let registry: ConnectionRegistry
    private var count = 0
    private var full = false
    private var lastWarning: ContinuousClock.Instant?

    /// Creates the cap.
    /// - Parameters:
    ///   - limit: Connections at once (at least 1).
    ///   - logger: Where reaching the cap is logged.
    ///   - registry: The connections, of which the idle ones are closed at the cap.
    init(limit: Int, logger: Logger, registry: ConnectionRegistry) {
        self.limit = max(1, limit)
        self.logger = logger
        self.registry = registry
    }

    mutating func connectionOpened() {
        count += 1
        // Near the cap, each new connection closes the one idle the longest, so that there is
        // always room for a client with something to send.
        guard count >= limit - max(1, limit / 32) else { return }
        // Idle for a moment at least: a connection accepted just now may have its request waiting
        // unread (its bytes are seen only when its event loop reads them).
        let evicted = registry.evictIdle(1, idleFor: ConnectionRegistry.minimumIdle)
        guard count >= limit else { return }
        registry.capReached(batch: max(1, limit / 32))
        if !full {
            full = true
            // Once per 10 s at most: under a flood the cap is reached again and again.
            let now = ContinuousClock.now
            if let last = lastWarning, now - last < .seconds(10) { return }
            lastWarning = now
            logger.warning(
                "connection limit reached: idle connections are closed to make room, new ones wait in the backlog",
                metadata: ["connections": .stringConvertible(count), "limit": .stringConvertible(limit), "evicted": .stringConvertible(evicted)])
        }
    }

    mutating func connectionClosed() {
        count = max(0, count - 1)
        if full, count < limit {
            full = false
            registry.capLeft()
        }
    }

    func isAcceptingNewConnections() -> Bool { count < limit }
}
