import Focal
@testable import FocalServer
import FocalTestSupport
import Foundation
import GRDB
import Logging
import Testing

/// Every override store behaves the same; the suite runs against each implementation that can
/// run here (SQLite always; PostgreSQL when the test setup started one: see PostgresSupport).
@Suite struct OverrideStoreTests {
    static let image = String(repeating: "a1", count: 32)

    static func stores() async throws -> [(String, any OverrideStore, () -> Void)] {
        let scratch = try Scratch()
        var all: [(String, any OverrideStore, () -> Void)] = [
            ("sqlite", try SQLiteOverrideStore(path: scratch.file("overrides.sqlite")), { scratch.remove() })
        ]
        all += try await extraStores()
        return all
    }

    /// Migrates PostgreSQL stores before use (twice: a second run finds the work done).
    static func ready(_ store: any OverrideStore) async throws {
        if let postgres = store as? PostgresOverrideStore {
            try await postgres.migrate()
            try await postgres.migrate()
        }
    }

    @Test func saveReadUpdateDelete() async throws {
        for (name, store, cleanup) in try await Self.stores() {
            defer { cleanup() }
            try await Self.ready(store)
            let wide = try AspectKey(parsing: "16x9"), square = try AspectKey(parsing: "1:1")
            #expect(try await store.override(image: Self.image, aspect: wide) == nil, "\(name)")
            let (first, created) = try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 0, y: 10, width: 160, height: 90), expected: 0)
            #expect(created && first.revision == 1, "\(name)")
            let (second, createdAgain) = try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 5, y: 10, width: 160, height: 90), expected: 1)
            #expect(!createdAgain && second.revision == 2, "\(name)")
            _ = try await store.save(image: Self.image, aspect: square, crop: PixelRect(x: 0, y: 0, width: 50, height: 50), expected: nil)
            let read = try await store.override(image: Self.image, aspect: wide)
            #expect(read?.crop == PixelRect(x: 5, y: 10, width: 160, height: 90) && read?.revision == 2, "\(name)")
            #expect(try await store.overrides(image: Self.image).map(\.aspect.description) == ["16x9", "1x1"], "\(name)")
            #expect(try await store.overrides(image: String(repeating: "b2", count: 32)).isEmpty, "\(name)")
            // A stale revision is refused, for saves and deletes.
            await #expect(throws: ServerError.self, "\(name)") {
                try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 0, y: 0, width: 16, height: 9), expected: 1)
            }
            await #expect(throws: ServerError.self, "\(name)") { try await store.delete(image: Self.image, aspect: wide, expected: 1) }
            #expect(try await store.delete(image: Self.image, aspect: wide, expected: 2), "\(name)")
            #expect(try await !store.delete(image: Self.image, aspect: wide, expected: nil), "\(name)")
            #expect(try await store.override(image: Self.image, aspect: wide) == nil, "\(name)")
            // Saved again after a delete, it goes on from the delete's revision (3).
            let again = try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 0, y: 0, width: 16, height: 9), expected: 0)
            #expect(again.created && again.0.revision == 4, "\(name)")
        }
    }

    /// The lost update of issue ABA: A reads revision 1, B deletes, C saves anew; A's write with
    /// its revision 1 must fail, as it would have without the delete.
    @Test func aRevisionFromBeforeADeleteIsStaleForever() async throws {
        for (name, store, cleanup) in try await Self.stores() {
            defer { cleanup() }
            try await Self.ready(store)
            let wide = try AspectKey(parsing: "16x9"), square = try AspectKey(parsing: "1x1")
            let a = PixelRect(x: 0, y: 0, width: 160, height: 90), c = PixelRect(x: 10, y: 10, width: 320, height: 180)
            let seenByA = try await store.save(image: Self.image, aspect: wide, crop: a, expected: nil).0
            _ = try await store.save(image: Self.image, aspect: square, crop: PixelRect(x: 0, y: 0, width: 9, height: 9), expected: nil)
            #expect(seenByA.revision == 1, "\(name)")
            #expect(try await store.delete(image: Self.image, aspect: wide, expected: nil), "\(name): B deletes")
            // Deleted: neither read nor listed; deleting it again finds nothing.
            #expect(try await store.override(image: Self.image, aspect: wide) == nil, "\(name)")
            #expect(try await store.overrides(image: Self.image).map(\.aspect) == [square], "\(name)")
            #expect(try await !store.delete(image: Self.image, aspect: wide, expected: nil), "\(name)")
            #expect(try await !store.delete(image: Self.image, aspect: wide, expected: 0), "\(name)")
            // While deleted, A's revision (and the delete's own) is stale.
            for stale in [1, 2] {
                await #expect(throws: ServerError.stale(stale), "\(name)") {
                    try await store.save(image: Self.image, aspect: wide, crop: a, expected: stale)
                }
                await #expect(throws: ServerError.stale(stale), "\(name)") {
                    try await store.delete(image: Self.image, aspect: wide, expected: stale)
                }
            }
            let (savedByC, created) = try await store.save(image: Self.image, aspect: wide, crop: c, expected: 0)
            #expect(created && savedByC.revision == 3, "\(name): C's crop is new, at a revision never used before")
            // A, with its revision 1 from before the delete: refused, for a save and a delete.
            await #expect(throws: ServerError.stale(1), "\(name)") {
                try await store.save(image: Self.image, aspect: wide, crop: a, expected: 1)
            }
            await #expect(throws: ServerError.stale(1), "\(name)") { try await store.delete(image: Self.image, aspect: wide, expected: 1) }
            await #expect(throws: ServerError.stale(0), "\(name): must not exist, and does") {
                try await store.save(image: Self.image, aspect: wide, crop: a, expected: 0)
            }
            await #expect(throws: ServerError.stale(0), "\(name)") { try await store.delete(image: Self.image, aspect: wide, expected: 0) }
            let read = try await store.override(image: Self.image, aspect: wide)
            #expect(read?.crop == c && read?.revision == 3, "\(name): C's crop stands")
            #expect(try await store.overrides(image: Self.image).map(\.revision) == [3, 1], "\(name)")
            // Deleted with the right revision and saved anew without one: created, and higher still.
            #expect(try await store.delete(image: Self.image, aspect: wide, expected: 3), "\(name)")
            let (last, createdAgain) = try await store.save(image: Self.image, aspect: wide, crop: a, expected: nil)
            #expect(createdAgain && last.revision == 5, "\(name)")
            let (updated, createdOnceMore) = try await store.save(image: Self.image, aspect: wide, crop: c, expected: 5)
            #expect(!createdOnceMore && updated.revision == 6, "\(name)")
        }
    }

    /// A database written before tombstones (schema v1) is migrated on open and keeps its crops
    /// and their revisions; deleting one then leaves a tombstone like any other.
    @Test func aVersion1DatabaseUpgrades() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("overrides.sqlite")
        do {
            let old = try DatabaseQueue(path: path)
            try SQLiteOverrideStore.migrator.migrate(old, upTo: "v1: overrides")
            try await old.write { db in
                try db.execute(
                    sql: "INSERT INTO override (image, aspect, x, y, width, height, revision, updated) VALUES (?, '16x9', 0, 0, 160, 90, 3, ?)",
                    arguments: [Self.image, Date()])
            }
        }
        try await Self.expectUpgraded(try SQLiteOverrideStore(path: path), "sqlite")

        for (name, store, cleanup) in try await extraStores() {
            defer { cleanup() }
            guard let postgres = store as? PostgresOverrideStore else { continue }
            try await postgres.migrate(upTo: "v1: overrides and uploads")
            try await postgres.client.query(
                "INSERT INTO override (image, aspect, x, y, width, height, revision, updated) VALUES (\(Self.image), '16x9', 0, 0, 160, 90, 3, now())",
                logger: Logger(label: "focal-tests.postgres"))
            try await postgres.migrate()
            try await Self.expectUpgraded(postgres, name)
        }
    }

    /// The v1 crop at 16x9 (revision 3) is there, and writes go on from it.
    static func expectUpgraded(_ store: any OverrideStore, _ name: String) async throws {
        let wide = try AspectKey(parsing: "16x9")
        let read = try await store.override(image: Self.image, aspect: wide)
        #expect(read?.crop == PixelRect(x: 0, y: 0, width: 160, height: 90) && read?.revision == 3, "\(name)")
        #expect(try await store.overrides(image: Self.image).count == 1, "\(name)")
        let (updated, created) = try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 16, y: 0, width: 160, height: 90), expected: 3)
        #expect(!created && updated.revision == 4, "\(name)")
        #expect(try await store.delete(image: Self.image, aspect: wide, expected: 4), "\(name)")
        #expect(try await store.overrides(image: Self.image).isEmpty, "\(name)")
        let (again, createdAgain) = try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 0, y: 0, width: 16, height: 9), expected: 0)
        #expect(createdAgain && again.revision == 6, "\(name)")
    }

    @Test func concurrentSavesEachGetTheirOwnRevision() async throws {
        for (name, store, cleanup) in try await Self.stores() {
            defer { cleanup() }
            try await Self.ready(store)
            let key = try AspectKey(parsing: "4x5")
            let revisions = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<20 {
                    group.addTask { try await store.save(image: Self.image, aspect: key, crop: PixelRect(x: i, y: 0, width: 40, height: 50), expected: nil).0.revision }
                }
                var all: [Int] = []
                for try await revision in group { all.append(revision) }
                return all.sorted()
            }
            #expect(revisions == Array(1...20), "\(name): \(revisions)")
        }
    }

    @Test func theSQLiteFileKeepsItsCropsAcrossOpens() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("data/overrides.sqlite")
        do {
            let store = try SQLiteOverrideStore(path: path)
            _ = try await store.save(image: Self.image, aspect: try AspectKey(parsing: "3x2"), crop: PixelRect(x: 1, y: 2, width: 30, height: 20), expected: nil)
        }
        let reopened = try SQLiteOverrideStore(path: path)
        #expect(try await reopened.override(image: Self.image, aspect: try AspectKey(parsing: "3x2"))?.crop == PixelRect(x: 1, y: 2, width: 30, height: 20))
    }

    @Test func aspectKeysReduce() throws {
        #expect(try AspectKey(parsing: "1920x1080").description == "16x9")
        #expect(try AspectKey(parsing: "16:9") == AspectKey(width: 32, height: 18))
        for bad in ["16", "0x9", "x", "16x", "axb", "1x-1", "999999999999x1"] {
            #expect(throws: ServerError.self, "\(bad)") { try AspectKey(parsing: bad) }
        }
        #expect(try AspectKey(parsing: "16x9").matches(PixelRect(x: 0, y: 0, width: 512, height: 288)))
        #expect(try !AspectKey(parsing: "16x9").matches(PixelRect(x: 0, y: 0, width: 512, height: 300)))
    }
}
