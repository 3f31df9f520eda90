public import Focal
import Foundation
public import Logging
public import PostgresNIO

/// Saved crops (and uploads) in PostgreSQL (postgres-nio), shared by every replica of the
/// service. Selected with `--database postgres://user:password@host:port/database`.
///
/// The schema is migrated on start, once per version, under an advisory lock so that replicas
/// starting together do not race. Every write is one statement, so concurrent saves on several
/// replicas each get their own revision and a stale `If-Match` is always refused. A delete keeps
/// the row as a tombstone (`deleted`) so that revisions never repeat (see `OverrideStore`).
public final class PostgresOverrideStore: OverrideStore {
    /// The connection pool.
    public let client: PostgresClient
    private let logger: Logger
    /// Runs the pool for the life of the store.
    private let runner: Task<Void, Never>

    /// Creates a store for `url` (`postgres://user:password@host:port/database`) and starts its
    /// connection pool; call `migrate()` before use.
    /// - Throws: `ServerError` (`request.invalid`) for a URL that is not one.
    public init(url: String, logger: Logger) throws(ServerError) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, let user = components.user
        else {
            throw ServerError.invalid("the database is a URL like postgres://user:password@host:5432/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable)
        configuration.options.maximumConnections = 8
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    deinit { runner.cancel() }

    /// The schema, one migration per change; applied in order, each once.
    static let migrations: [(version: String, statements: [String])] = [
        ("v1: overrides and uploads", [
            """
            CREATE TABLE override (
                image text NOT NULL, aspect text NOT NULL,
                x integer NOT NULL, y integer NOT NULL, width integer NOT NULL, height integer NOT NULL,
                revision integer NOT NULL, updated timestamptz NOT NULL,
                PRIMARY KEY (image, aspect))
            """,
            "CREATE TABLE upload (id text PRIMARY KEY, bytes bytea NOT NULL, created timestamptz NOT NULL DEFAULT now())",
        ]),
        // A deleted crop's row stays, marked, so that its revision counter goes on.
        // `created_revision` is the revision at which the crop was last saved anew (over nothing or
        // a tombstone): a save whose new revision equals it created the crop, which one statement
        // can tell only from the row it wrote. Before v2 a delete removed the row, so every saved
        // crop then was created at revision 1.
        ("v2: tombstones", [
            "ALTER TABLE override ADD COLUMN deleted boolean NOT NULL DEFAULT false, ADD COLUMN created_revision integer NOT NULL DEFAULT 1",
        ]),
    ]

    /// Creates or updates the schema; safe to run from every replica at once.
    /// - Parameter last: The last migration to apply (tests make an old schema with it); nil: all.
    /// - Throws: `ServerError` (`server.storage`) when the database cannot be reached or migrated.
    public func migrate(upTo last: String? = nil) async throws {
        try await storage {
            try await client.withTransaction(logger: logger) { connection in
                // One replica migrates at a time; the others then find the work done.
                try await connection.query("SELECT pg_advisory_xact_lock(7466786)", logger: logger)
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS focal_migration (version text PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())",
                    logger: logger)
                var applied = Set<String>()
                for try await version in try await connection.query("SELECT version FROM focal_migration", logger: logger).decode(String.self) {
                    applied.insert(version)
                }
                let wanted = last.flatMap { last in Self.migrations.firstIndex { $0.version == last } }
                    .map { Self.migrations[...$0] } ?? Self.migrations[...]
                for migration in wanted where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO focal_migration (version) VALUES (\(migration.version))", logger: logger)
                }
            }
        }
    }

    private static func savedCrop(image: String, aspect: String, x: Int, y: Int, width: Int, height: Int, revision: Int, updated: Date) throws
        -> SavedCrop
    {
        SavedCrop(
            image: image, aspect: try AspectKey(parsing: aspect), crop: PixelRect(x: x, y: y, width: width, height: height),
            revision: revision, updated: updated)
    }

    public func overrides(image: String) async throws -> [SavedCrop] {
        try await storage {
            let rows = try await client.query(
                "SELECT image, aspect, x, y, width, height, revision, updated FROM override WHERE image = \(image) AND NOT deleted ORDER BY aspect",
                logger: logger)
            var all: [SavedCrop] = []
            for try await (image, aspect, x, y, width, height, revision, updated) in rows.decode((String, String, Int, Int, Int, Int, Int, Date).self) {
                all.append(try Self.savedCrop(image: image, aspect: aspect, x: x, y: y, width: width, height: height, revision: revision, updated: updated))
            }
            return all
        }
    }

    public func override(image: String, aspect: AspectKey) async throws -> SavedCrop? {
        try await overrides(image: image).first { $0.aspect == aspect }
    }

    public func save(image: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool) {
        try await storage {
            let key = aspect.description
            let rows: PostgresRowSequence
            switch expected {
            case nil:
                // Over a tombstone, the crop is created again at the next revision.
                rows = try await client.query(
                    """
                    INSERT INTO override (image, aspect, x, y, width, height, revision, updated, deleted, created_revision)
                    VALUES (\(image), \(key), \(crop.x), \(crop.y), \(crop.width), \(crop.height), 1, now(), false, 1)
                    ON CONFLICT (image, aspect) DO UPDATE SET x = EXCLUDED.x, y = EXCLUDED.y, width = EXCLUDED.width,
                        height = EXCLUDED.height, revision = override.revision + 1, updated = now(), deleted = false,
                        created_revision = CASE WHEN override.deleted THEN override.revision + 1 ELSE override.created_revision END
                    RETURNING revision, updated, revision = created_revision AS inserted
                    """, logger: logger)
            case 0?:
                // Nothing saved, or only a tombstone (the update's WHERE sees the latest row).
                rows = try await client.query(
                    """
                    INSERT INTO override (image, aspect, x, y, width, height, revision, updated, deleted, created_revision)
                    VALUES (\(image), \(key), \(crop.x), \(crop.y), \(crop.width), \(crop.height), 1, now(), false, 1)
                    ON CONFLICT (image, aspect) DO UPDATE SET x = EXCLUDED.x, y = EXCLUDED.y, width = EXCLUDED.width,
                        height = EXCLUDED.height, revision = override.revision + 1, updated = now(), deleted = false,
                        created_revision = override.revision + 1
                    WHERE override.deleted
                    RETURNING revision, updated, true AS inserted
                    """, logger: logger)
            case let revision?:
                rows = try await client.query(
                    """
                    UPDATE override SET x = \(crop.x), y = \(crop.y), width = \(crop.width), height = \(crop.height),
                        revision = revision + 1, updated = now()
                    WHERE image = \(image) AND aspect = \(key) AND revision = \(revision) AND NOT deleted
                    RETURNING revision, updated, false AS inserted
                    """, logger: logger)
            }
            for try await (revision, updated, inserted) in rows.decode((Int, Date, Bool).self) {
                return (SavedCrop(image: image, aspect: aspect, crop: crop, revision: revision, updated: updated), inserted)
            }
            throw ServerError.stale(expected ?? 0)
        }
    }

    public func delete(image: String, aspect: AspectKey, expected: Int?) async throws -> Bool {
        try await storage {
            let key = aspect.description
            switch expected {
            case 0?:
                // Nothing to delete when nothing is saved, and refused when something is.
                if try await override(image: image, aspect: aspect) != nil { throw ServerError.stale(0) }
                return false
            case let expected?:
                let rows = try await client.query(
                    """
                    UPDATE override SET deleted = true, revision = revision + 1, updated = now()
                    WHERE image = \(image) AND aspect = \(key) AND revision = \(expected) AND NOT deleted
                    RETURNING revision
                    """, logger: logger)
                for try await _ in rows.decode(Int.self) { return true }
                throw ServerError.stale(expected)
            case nil:
                let rows = try await client.query(
                    """
                    UPDATE override SET deleted = true, revision = revision + 1, updated = now()
                    WHERE image = \(image) AND aspect = \(key) AND NOT deleted
                    RETURNING revision
                    """, logger: logger)
                for try await _ in rows.decode(Int.self) { return true }
                return false
            }
        }
    }

    // MARK: - Notifications

    /// The channel every write of a saved crop is announced on, with the image's id.
    static let channel = "focal_saved_crops"

    /// Announces that an image's saved crops changed, to every replica listening.
    func announce(image: String) async throws {
        _ = try await storage {
            try await client.query("SELECT pg_notify(\(Self.channel), \(image))", logger: logger)
        }
    }

    /// Listens to the announcements on one connection of the pool until it fails or the task is
    /// cancelled: `connected` once listening, `notified` with each image id.
    func listen(connected: @Sendable () -> Void, notified: @Sendable (String) -> Void) async throws {
        try await client.withConnection { connection in
            try await connection.listen(on: Self.channel) { notifications in
                connected()
                for try await notification in notifications { notified(notification.payload) }
            }
        }
    }

    // MARK: - Uploads

    /// Stores an upload's bytes (once per identity).
    func putUpload(_ data: Data, id: String) async throws {
        _ = try await storage {
            try await client.query(
                "INSERT INTO upload (id, bytes) VALUES (\(id), \(ByteBuffer(bytes: data))) ON CONFLICT (id) DO NOTHING", logger: logger)
        }
    }

    /// An upload's bytes, or nil.
    func upload(_ id: String) async throws -> Data? {
        try await storage {
            let rows = try await client.query("SELECT bytes FROM upload WHERE id = \(id)", logger: logger)
            for try await bytes in rows.decode(ByteBuffer.self) { return Data(bytes.readableBytesView) }
            return nil
        }
    }

    private func storage<T>(_ body: () async throws -> T) async throws -> T { try await ServerError.storage(body) }
}
