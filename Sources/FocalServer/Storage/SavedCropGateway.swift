import Focal
import Foundation
import Logging
import Synchronization

/// The one way the service reads and writes saved crops, kept out of the way of the crops that
/// do not need them: every call to the store has a deadline of its own and goes through a
/// circuit breaker, and the pipeline's look-ups (one per smart request) come from a short-lived
/// cache of each image's saved crops.
///
/// - **Fresh entries** answer without the store. With SQLite (one machine) an entry is fresh for
///   `freshFor` and this process's own writes replace it at once. With PostgreSQL (replicas) an
///   entry is fresh only while this replica listens to the database's notifications
///   (`LISTEN focal_saved_crops`, on which every write announces its image) since before the
///   entry was read, so a crop saved through another replica is seen at once; a writer waits
///   (up to `noticeWait`) until the database has passed its own notification on.
/// - **When the store cannot answer** (down, stalled past `readDeadline`, or the breaker open
///   after failures in a row), the last known entry is used (up to `staleFor` old); with none,
///   the pipeline crops as if nothing were saved and marks the result (`SavedCropsUnavailable`:
///   `X-Focal-Degraded: saved-crops`, cached nowhere). So cached and unsaved crops keep being
///   served while the database is away, and nothing waits on it for more than `readDeadline`.
/// - **The editor's routes** read the store itself (fresh data for a person), with the same
///   deadlines and breaker: 503 `server.storage` at once rather than a hang.
final class SavedCropGateway: CropOverriding {
    let store: any OverrideStore
    /// The shared database, whose notifications keep entries fresh across replicas.
    let shared: PostgresOverrideStore?
    /// How long one read may take; default 1 s with PostgreSQL, 5 s with SQLite.
    let readDeadline: Duration
    /// How long one write may take; default 5 s.
    let writeDeadline: Duration
    /// How long an entry answers without the store; default 10 s.
    let freshFor: Duration
    /// How old a last known entry may be to stand in while the store cannot answer; default 1 h.
    let staleFor: Duration
    /// The most saved crops one image may have (aspects); default 64.
    let maxPerImage: Int
    /// How long a writer waits to see its own notification come back; default 250 ms.
    static let noticeWait: Duration = .milliseconds(250)
    /// The most images whose entries are kept.
    static let maxEntries = 10_000

    let breaker: CircuitBreaker
    private let logger: Logger
    private let entries = Mutex<[String: Entry]>([:])
    /// Since when this replica has listened to the database's notifications (nil: not now).
    private let listening = Mutex<ContinuousClock.Instant?>(nil)
    /// When each image was last written, here or (by notification) on another replica, bounded.
    private let noticed = Mutex<[String: ContinuousClock.Instant]>([:])
    /// When a notification last came back for each image (writers wait on it), bounded.
    private let announced = Mutex<[String: ContinuousClock.Instant]>([:])

    private struct Entry {
        var crops: [SavedCrop]
        var fetched: ContinuousClock.Instant
    }

    /// Creates the gateway; every duration defaults to the value documented on its property.
    init(
        store: any OverrideStore, logger: Logger, readDeadline: Duration? = nil, writeDeadline: Duration = .seconds(5),
        freshFor: Duration = .seconds(10), staleFor: Duration = .seconds(3600), maxPerImage: Int = 64,
        breaker: CircuitBreaker = CircuitBreaker()
    ) {
        self.store = store
        self.shared = store as? PostgresOverrideStore
        self.logger = logger
        // A shared database can stall with its network: a second. A local SQLite file only with its
        // disk, and a busy machine can take longer than that: five.
        self.readDeadline = readDeadline ?? (store is PostgresOverrideStore ? .seconds(1) : .seconds(5))
        self.writeDeadline = writeDeadline
        self.freshFor = freshFor
        self.staleFor = staleFor
        self.maxPerImage = max(1, maxPerImage)
        self.breaker = breaker
    }

    // MARK: - The pipeline's look-ups

    func override(image id: String, ratio: Double) async throws -> CropOverride? {
        let saved = try await crops(of: id)
        return SavedCropRule.match(saved, ratio: ratio) { $0.aspect.ratio }.map {
            CropOverride(crop: $0.crop, revision: $0.revision, aspect: .aspect(width: $0.aspect.width, height: $0.aspect.height), updated: $0.updated)
        }
    }

    /// The saved crops of an image: a fresh entry, else the store's answer within the deadline,
    /// else the last known entry.
    /// - Throws: `SavedCropsUnavailable` when the store cannot answer and nothing is known.
    func crops(of id: String) async throws(SavedCropsUnavailable) -> [SavedCrop] {
        let now = ContinuousClock.now
        let entry = entries.withLock { $0[id] }
        if let entry, isFresh(entry, now: now) { return entry.crops }
        do {
            let crops = try await call(readDeadline) { [store] in try await store.overrides(image: id) }
            remember(crops, for: id, fetched: now)
            return crops
        } catch {
            if let entry, now - entry.fetched < staleFor { return entry.crops }
            throw SavedCropsUnavailable(reason: (error as? any FocalError)?.detail ?? "\(error)")
        }
    }

    private func isFresh(_ entry: Entry, now: ContinuousClock.Instant) -> Bool {
        guard now - entry.fetched < freshFor else { return false }
        guard shared != nil else { return true }
        guard let since = listening.withLock({ $0 }) else { return false }
        return since <= entry.fetched
    }

    private func remember(_ crops: [SavedCrop], for id: String, fetched: ContinuousClock.Instant) {
        // Written since this read began (here, or announced by another replica): what it read may
        // be older than the write, so it is not kept.
        if let written = noticed.withLock({ $0[id] }), written >= fetched { return }
        entries.withLock { entries in
            if entries.count >= Self.maxEntries, entries[id] == nil {
                // Bounded: the oldest tenth goes.
                for key in entries.sorted(by: { $0.value.fetched < $1.value.fetched }).prefix(Self.maxEntries / 10).map(\.key) {
                    entries[key] = nil
                }
            }
            entries[id] = Entry(crops: crops, fetched: fetched)
        }
    }

    /// Forgets what is known of an image (it was written, here or on another replica), and
    /// remembers when, so that a read that began before cannot put it back.
    func invalidate(_ id: String) {
        noticed.withLock { noticed in
            if noticed.count >= Self.maxEntries { noticed.removeAll(keepingCapacity: true) }
            noticed[id] = .now
        }
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    // MARK: - The editor's routes

    /// Every crop saved for an image, from the store.
    func list(image id: String) async throws -> [SavedCrop] {
        try await call(readDeadline) { [store] in try await store.overrides(image: id) }
    }

    /// The crop saved for an image at an aspect, from the store.
    func get(image id: String, aspect: AspectKey) async throws -> SavedCrop? {
        try await call(readDeadline) { [store] in try await store.override(image: id, aspect: aspect) }
    }

    /// Saves a crop (see `OverrideStore.save`), refusing a new aspect past `maxPerImage`; every
    /// replica sees it at once.
    /// - Throws: `ServerError` (`request.invalid` past the bound, `request.precondition_failed`,
    ///   `server.storage`).
    func save(image id: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool) {
        let existing = try await list(image: id)
        if existing.count >= maxPerImage, !existing.contains(where: { $0.aspect == aspect }) {
            throw ServerError.invalid("an image holds at most \(maxPerImage) saved crops; delete one before saving another aspect")
        }
        let started = ContinuousClock.now
        let saved = try await call(writeDeadline) { [store] in try await store.save(image: id, aspect: aspect, crop: crop, expected: expected) }
        await written(id, since: started)
        return saved
    }

    /// Deletes a saved crop (see `OverrideStore.delete`); every replica sees it at once.
    func delete(image id: String, aspect: AspectKey, expected: Int?) async throws -> Bool {
        let started = ContinuousClock.now
        let deleted = try await call(writeDeadline) { [store] in try await store.delete(image: id, aspect: aspect, expected: expected) }
        await written(id, since: started)
        return deleted
    }

    /// After a write: forgotten here, announced to the other replicas, and (while listening)
    /// waited on until the database has passed the announcement on.
    private func written(_ id: String, since started: ContinuousClock.Instant) async {
        invalidate(id)
        guard let shared else { return }
        do {
            try await call(readDeadline) { try await shared.announce(image: id) }
        } catch {
            logger.warning("a saved crop's write was not announced to the other replicas", metadata: ["image": .string(id), "error": .string("\(error)")])
            return
        }
        guard listening.withLock({ $0 }) != nil else { return }
        let deadline = ContinuousClock.now + Self.noticeWait
        while ContinuousClock.now < deadline {
            if let seen = announced.withLock({ $0[id] }), seen >= started { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: - Calls to the store

    /// A call to the store (or to the shared database for uploads) within `deadline`, through
    /// the breaker.
    /// - Throws: `ServerError` (`server.storage`) when the breaker is open or the deadline passes;
    ///   what the store throws (a `ServerError` of the store's own counts as an answer, not a failure).
    /// - Parameter counted: Whether the outcome counts on the breaker; default true. Uploads'
    ///   bytes (up to 64 MiB) are fetched through the same database but do not count: slow ones
    ///   must not take the saved crops out.
    func call<T: Sendable>(_ deadline: Duration, counted: Bool = true, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let admitted = counted ? breaker.allows() : breaker.current != .open
        guard admitted else {
            throw ServerError(.serverStorage, "the saved crops' database is failing; try again shortly", cause: "circuit breaker open")
        }
        do {
            let value = try await TimeBound.run(deadline, timedOut: {
                ServerError(.serverStorage, "the saved crops' database did not answer in time; try again shortly", cause: "no answer within \(deadline)")
            }, body)
            if counted { breaker.succeeded() }
            return value
        } catch let error as ServerError where error.code != .serverStorage {
            // The store answered (a stale revision, a bad request): it is working.
            if counted { breaker.succeeded() }
            throw error
        } catch is CancellationError {
            // The caller went away: nothing learnt, but a probe it was must not stay taken.
            if counted { breaker.abandoned() }
            throw CancellationError()
        } catch {
            if counted { breaker.failed() }
            throw error
        }
    }

    // MARK: - Health

    /// The store's state for readiness: nil when a read within the deadline works, else why not.
    /// It bypasses the breaker and the cache, and it records its outcome on the breaker.
    func probe() async -> String? {
        do {
            _ = try await TimeBound.run(readDeadline, timedOut: { ServerError(.serverStorage, "no answer within \(self.readDeadline)") }) {
                [store] in try await store.overrides(image: String(repeating: "0", count: 64))
            }
            breaker.succeeded()
            return nil
        } catch {
            breaker.failed()
            return (error as? any FocalError)?.detail ?? "\(error)"
        }
    }

    /// Whether this replica listens to the database's notifications now (PostgreSQL only).
    var isListening: Bool { listening.withLock { $0 != nil } }

    /// Listens to the database's notifications until cancelled, connecting again a second after
    /// each loss (PostgreSQL only; returns at once otherwise).
    func listen() async {
        guard let shared else { return }
        while !Task.isCancelled {
            do {
                try await shared.listen { [self] in
                    listening.withLock { $0 = .now }
                } notified: { [self] id in
                    invalidate(id)
                    announced.withLock { announced in
                        if announced.count >= Self.maxEntries { announced.removeAll(keepingCapacity: true) }
                        announced[id] = .now
                    }
                }
            } catch {
                if !Task.isCancelled {
                    // The database went away under this replica: count it, so that the breaker
                    // opens without waiting for requests to find out.
                    breaker.failed()
                    logger.warning("not listening to saved crops' notifications; trying again", metadata: ["error": .string("\(error)")])
                }
            }
            listening.withLock { $0 = nil }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
