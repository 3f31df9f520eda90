public import Focal
import Foundation
import GRDB

/// Saved crops in an SQLite file (GRDB), for one machine: `overrides.sqlite` in the data folder,
/// written in WAL mode so reads never wait for writes, migrated on open.
public final class SQLiteOverrideStore: OverrideStore {
    private let database: DatabasePool

    /// Opens (and creates or migrates) the database at `path`.
    /// - Throws: `ServerError` (`server.storage`) when it cannot be opened or migrated.
    public init(path: String) throws(ServerError) {
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            database = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw ServerError(.serverStorage, "the overrides database cannot be opened", cause: "\(path): \(error)")
        }
    }

    /// The schema, one migration per change; applied in order, each once.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: overrides") { db in
            try db.create(table: "override") { table in
                table.column("image", .text).notNull()
                table.column("aspect", .text).notNull()
                table.column("x", .integer).notNull()
                table.column("y", .integer).notNull()
                table.column("width", .integer).notNull()
                table.column("height", .integer).notNull()
                table.column("revision", .integer).notNull()
                table.column("updated", .datetime).notNull()
                table.primaryKey(["image", "aspect"])
            }
        }
        return migrator
    }

    private static func savedCrop(_ row: Row) throws -> SavedCrop {
        SavedCrop(
            image: row["image"], aspect: try AspectKey(parsing: row["aspect"] as String),
            crop: PixelRect(x: row["x"], y: row["y"], width: row["width"], height: row["height"]),
            revision: row["revision"], updated: row["updated"])
    }

    public func overrides(image: String) async throws -> [SavedCrop] {
        try await storage {
            try await database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM override WHERE image = ? ORDER BY aspect", arguments: [image]).map(Self.savedCrop)
            }
        }
    }

    public func override(image: String, aspect: AspectKey) async throws -> SavedCrop? {
        try await storage {
            try await database.read { db in
                // Read on every smart request: a statement prepared once per connection.
                let statement = try db.cachedStatement(sql: "SELECT * FROM override WHERE image = ? AND aspect = ?")
                return try Row.fetchOne(statement, arguments: [image, aspect.description]).map(Self.savedCrop)
            }
        }
    }

    public func save(image: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool) {
        try await storage {
            try await database.write { db in
                let current = try Self.revision(db, image: image, aspect: aspect, expected: expected)
                let saved = SavedCrop(image: image, aspect: aspect, crop: crop, revision: (current ?? 0) + 1, updated: Date())
                try db.execute(
                    sql: """
                        INSERT INTO override (image, aspect, x, y, width, height, revision, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (image, aspect) DO UPDATE SET x = excluded.x, y = excluded.y, width = excluded.width,
                            height = excluded.height, revision = excluded.revision, updated = excluded.updated
                        """,
                    arguments: [image, aspect.description, crop.x, crop.y, crop.width, crop.height, saved.revision, saved.updated])
                return (saved, current == nil)
            }
        }
    }

    public func delete(image: String, aspect: AspectKey, expected: Int?) async throws -> Bool {
        try await storage {
            try await database.write { db in
                let current = try Self.revision(db, image: image, aspect: aspect, expected: expected)
                try db.execute(sql: "DELETE FROM override WHERE image = ? AND aspect = ?", arguments: [image, aspect.description])
                return current != nil
            }
        }
    }

    /// The current revision (nil when nothing is saved), checked against `expected` (0: none).
    /// - Throws: `ServerError` (`request.precondition_failed`) when they differ.
    private static func revision(_ db: Database, image: String, aspect: AspectKey, expected: Int?) throws -> Int? {
        let current = try Int.fetchOne(
            db, sql: "SELECT revision FROM override WHERE image = ? AND aspect = ?", arguments: [image, aspect.description])
        if let expected, expected != (current ?? 0) { throw ServerError.stale(expected) }
        return current
    }

    private func storage<T>(_ body: () async throws -> T) async throws -> T { try await ServerError.storage(body) }
}
