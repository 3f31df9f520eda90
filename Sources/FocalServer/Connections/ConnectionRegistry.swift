import Focal
import Logging
import NIOCore
import Synchronization

/// Every connection `focal serve` has open, the memory their request bodies hold, and why
/// connections were closed early. One per server; `RequestGuard` reports to it.
///
/// It can close every connection at once (`closeAll()`): the bound on a graceful shutdown, which
/// otherwise waits for whatever clients do. And it knows which connections are idle (between
/// requests, or open without a byte sent), so that at the connection cap the longest idle ones
/// make room for new clients (`evictIdle`), as nginx reuses its idle keep-alive connections: a
/// crowd of idle connections cannot keep a new client waiting.
final class ConnectionRegistry: Sendable {
    /// The bytes of request bodies all connections may hold.
    let maxBodyMemory: Int
    private let logger: Logger
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let bodyBytes = Mutex(0)
    private let closes = Mutex(Closes())
    private let forcing = Atomic(false)
    /// Idle connections: since when, and whether they have ever sent a request (those that never
    /// did are closed first: a client that has asked for something is likelier to again).
    private let idle = Mutex<[ObjectIdentifier: (channel: any Channel, since: ContinuousClock.Instant, served: Bool)]>([:])
    /// Connections whose socket has taken nothing of their pending writes for a second: since when.
    private let stalled = Mutex<[ObjectIdentifier: (channel: any Channel, since: ContinuousClock.Instant)]>([:])
    /// Connections closed to make room: closed at once, whatever they still had to write. Only
    /// open connections are marked (under the same lock as `channels`, see `close(_:reason:)`), so
    /// no mark outlives its connection to fall on another at the same address.
    private let evicted = Mutex<Set<ObjectIdentifier>>([])
    /// While the cap holds accepting back, a task closes an idle connection every 200 ms.
    private let capWatch = Mutex<Task<Void, Never>?>(nil)

    private struct Closes {
        var byReason: [String: Int] = [:]
        var unlogged: [String: Int] = [:]
        var lastLog: ContinuousClock.Instant?
    }

    /// Creates a registry.
    /// - Parameters:
    ///   - maxBodyMemory: The bytes of request bodies all connections may hold together.
    ///   - logger: Where early closes are summarised (at most one line every 10 s).
    init(maxBodyMemory: Int, logger: Logger) {
        self.maxBodyMemory = maxBodyMemory
        self.logger = logger
    }

    deinit { capWatch.withLock { $0?.cancel() } }

    /// How long a connection must have been idle to be closed to make room: one accepted a moment
    /// ago may hold a request its event loop has not read yet.
    static let minimumIdle: Duration = .milliseconds(100)

    /// Connections open now.
    var open: Int { channels.withLock { $0.count } }

    /// Bytes of request bodies held now.
    var bodyMemory: Int { bodyBytes.withLock { $0 } }

    /// Connections closed early so far, by reason (`client_closed`, `evicted_idle`, `evicted_stalled`, `idle_timeout`, `header_timeout`, `body_timeout`,
    /// `body_too_slow`, `answer_too_slow`, `body_memory`, `too_large`, `bad_request`, `shutdown`).
    var closedEarly: [String: Int] { closes.withLock { $0.byReason } }

    /// Whether every connection is being closed now, pending writes or not.
    var isForcing: Bool { forcing.load(ordering: .acquiring) }

    func add(_ channel: any Channel) {
        channels.withLock { $0[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { channels in
            channels[id] = nil
            _ = evicted.withLock { $0.remove(id) }
        }
        _ = idle.withLock { $0.removeValue(forKey: id) }
        _ = stalled.withLock { $0.removeValue(forKey: id) }
    }

    /// Records whether a connection's socket has taken nothing of its pending writes for a second.
    func setStalled(_ channel: any Channel, _ isStalled: Bool) {
        stalled.withLock { stalled in
            if isStalled {
                if stalled[ObjectIdentifier(channel)] == nil { stalled[ObjectIdentifier(channel)] = (channel, .now) }
            } else {
                stalled[ObjectIdentifier(channel)] = nil
            }
        }
    }

    /// Whether a connection was closed to make room (its close is not held for pending writes).
    func isEvicted(_ channel: any Channel) -> Bool {
        evicted.withLock { $0.contains(ObjectIdentifier(channel)) }
    }

    /// Records whether a connection is idle: between requests (`served`), or open with nothing sent.
    func setIdle(_ channel: any Channel, _ isIdle: Bool, served: Bool) {
        idle.withLock { idle in
            if isIdle {
                if idle[ObjectIdentifier(channel)] == nil { idle[ObjectIdentifier(channel)] = (channel, .now, served) }
            } else {
                idle[ObjectIdentifier(channel)] = nil
            }
        }
    }

    /// The connection cap holds accepting back: until `capLeft()`, every 200 ms close up to `batch`
    /// of the connections idle the longest (idle for `minimumIdle` at least), or when none is idle
    /// as many of those stalled the longest (clients that have taken nothing of their answers for a second
    /// at least), so that clients waiting in the backlog get in.
    func capReached(batch: Int = 1) {
        capWatch.withLock { watch in
            guard watch == nil else { return }
            watch = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    guard let self else { return }
                    if self.evictIdle(batch, idleFor: Self.minimumIdle) == 0 { self.evictStalled(batch) }
                }
            }
        }
    }

    /// Closes up to `count` stalled connections (see `setStalled`), the longest stalled first, at
    /// once; returns how many.
    @discardableResult
    func evictStalled(_ count: Int) -> Int {
        let oldest = stalled.withLock { stalled -> [any Channel] in
            let chosen = stalled.sorted { $0.value.since < $1.value.since }.prefix(max(0, count))
            for (key, _) in chosen { stalled[key] = nil }
            return chosen.map(\.value.channel)
        }
        close(oldest, reason: "evicted_stalled")
        return oldest.count
    }

    /// Closes connections chosen to make room, at once.
    private func close(_ chosen: [any Channel], reason: String) {
        channels.withLock { channels in
            evicted.withLock { evicted in
                for channel in chosen where channels[ObjectIdentifier(channel)] != nil { evicted.insert(ObjectIdentifier(channel)) }
            }
        }
        for channel in chosen {
            closedEarly(reason)
            channel.close(promise: nil)
        }
    }

    /// The connection cap accepts again.
    func capLeft() {
        capWatch.withLock { watch in
            watch?.cancel()
            watch = nil
        }
    }

    /// Closes up to `count` idle connections (idle at least `idleFor`, or four times that for one
    /// that has served a request): those that never sent a request first, then those idle the
    /// longest; returns how many.
    @discardableResult
    func evictIdle(_ count: Int, idleFor: Duration = .zero) -> Int {
        let now = ContinuousClock.now
        let oldest = idle.withLock { idle -> [any Channel] in
            // A client that has asked for something keeps its connection longer: four times as long.
            let chosen = idle.filter { now - $0.value.since >= ($0.value.served ? idleFor * 4 : idleFor) }
                .sorted { ($0.value.served ? 1 : 0, $0.value.since) < ($1.value.served ? 1 : 0, $1.value.since) }.prefix(max(0, count))
            for (key, _) in chosen { idle[key] = nil }
            return chosen.map(\.value.channel)
        }
        close(oldest, reason: "evicted_idle")
        return oldest.count
    }

    /// Reserves `bytes` of body memory; false when the total would pass `maxBodyMemory`.
    func reserveBody(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        return bodyBytes.withLock { held in
            let (total, overflow) = held.addingReportingOverflow(bytes)
            guard !overflow, total <= maxBodyMemory else { return false }
            held = total
            return true
        }
    }

    /// Gives back body memory reserved earlier.
    func releaseBody(_ bytes: Int) {
        guard bytes > 0 else { return }
        bodyBytes.withLock { $0 = max(0, $0 - bytes) }
    }

    /// Records a connection closed early, and logs a summary now and then (never one line per
    /// connection, so that a flood cannot flood the log).
    func closedEarly(_ reason: String) {
        let summary = closes.withLock { state -> [String: Int]? in
            state.byReason[reason, default: 0] += 1
            state.unlogged[reason, default: 0] += 1
            let now = ContinuousClock.now
            if let last = state.lastLog, now - last < .seconds(10) { return nil }
            state.lastLog = now
            defer { state.unlogged = [:] }
            return state.unlogged
        }
        guard let summary else { return }
        var metadata: Logger.Metadata = [:]
        for (reason, count) in summary { metadata[reason] = .stringConvertible(count) }
        logger.notice("connections closed early", metadata: metadata)
    }

    /// Closes every open connection now, abandoning writes still pending.
    func closeAll() {
        forcing.store(true, ordering: .releasing)
        let open = channels.withLock { Array($0.values) }
        for channel in open {
            closedEarly("shutdown")
            channel.close(promise: nil)
        }
    }
}
