public import Focal
import Foundation
import GRDB

/// Saved crops in an SQLite file (GRDB), for one machine: `overrides.sqlite` in the data folder,
/// written in WAL mode so reads never wait for writes, migrated on open. A delete keeps the row as
/// a tombstone (`deleted`) so that revisions never repeat (see `OverrideStore`).
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
        migrator.registerMigration("v2: tombstones") { db in
            // A deleted crop's row stays, marked, so that its revision counter goes on.
            try db.alter(table: "override") { table in
                table.add(column: "deleted", .boolean).notNull().defaults(to: false)
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
                try Row.fetchAll(db, sql: "SELECT * FROM override WHERE image = ? AND NOT deleted ORDER BY aspect", arguments: [image]).map(Self.savedCrop)
            }
        }
    }

    public func override(image: String, aspect: AspectKey) async throws -> SavedCrop? {
        try await storage {
            try await database.read { db in
                // Read on every smart request: a statement prepared once per connection.
                let statement = try db.cachedStatement(sql: "SELECT * FROM override WHERE image = ? AND aspect = ? AND NOT deleted")
                return try Row.fetchOne(statement, arguments: [image, aspect.description]).map(Self.savedCrop)
            }
        }
    }

    public func save(image: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool) {
        try await storage {
            try await database.write { db in
                let current = try Self.current(db, image: image, aspect: aspect, expected: expected)
                let saved = SavedCrop(
                    image: image, aspect: aspect, crop: crop, revision: (current?.revision ?? 0) + 1, updated: Date())
                try db.execute(
                    sql: """
                        INSERT INTO override (image, aspect, x, y, width, height, revision, updated, deleted)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
                        ON CONFLICT (image, aspect) DO UPDATE SET x = excluded.x, y = excluded.y, width = excluded.width,
                            height = excluded.height, revision = excluded.revision, updated = excluded.updated, deleted = 0
                        """,
                    arguments: [image, aspect.description, crop.x, crop.y, crop.width, crop.height, saved.revision, saved.updated])
                return (saved, current?.live != true)
            }
        }
    }

    public func delete(image: String, aspect: AspectKey, expected: Int?) async throws -> Bool {
        try await storage {
            try await database.write { db in
                guard let current = try Self.current(db, image: image, aspect: aspect, expected: expected), current.live else {
                    return false
                }
                try db.execute(
                    sql: "UPDATE override SET deleted = 1, revision = ?, updated = ? WHERE image = ? AND aspect = ?",
                    arguments: [current.revision + 1, Date(), image, aspect.description])
                return true
            }
        }
    }

    /// The row's last revision and whether it is a saved crop (false: a tombstone), or nil when
    /// none was ever saved; checked against `expected`: 0 passes when no crop is saved, any other
    /// revision only when it is the saved crop's.
    /// - Throws: `ServerError` (`request.precondition_failed`) when it does not pass.
    private static func current(_ db: Database, image: String, aspect: AspectKey, expected: Int?) throws -> (revision: Int, live: Bool)? {
        let row = try Row.fetchOne(
            db, sql: "SELECT revision, deleted FROM override WHERE image = ? AND aspect = ?", arguments: [image, aspect.description])
        let current = row.map { (revision: $0["revision"] as Int, live: !($0["deleted"] as Bool)) }
        let saved = current.flatMap { $0.live ? $0.revision : nil } ?? 0
        if let expected, expected != saved { throw ServerError.stale(expected) }
        return current
    }

    private func storage<T>(_ body: () async throws -> T) async throws -> T { try await ServerError.storage(body) }
}
