import Focal
@testable import FocalServer
import FocalTestSupport
import Foundation
import Testing

/// Every override store behaves the same; the suite runs against each implementation that can
/// run here (SQLite always; PostgreSQL when the test setup started one: see PostgresSupport).
@Suite struct OverrideStoreTests {
    static let image = String(repeating: "a1", count: 32)

    static func stores() throws -> [(String, any OverrideStore, () -> Void)] {
        let scratch = try Scratch()
        var all: [(String, any OverrideStore, () -> Void)] = [
            ("sqlite", try SQLiteOverrideStore(path: scratch.file("overrides.sqlite")), { scratch.remove() })
        ]
        all += try extraStores()
        return all
    }

    @Test func saveReadUpdateDelete() async throws {
        for (name, store, cleanup) in try Self.stores() {
            defer { cleanup() }
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
            // Saved again after a delete, it starts over at 1.
            #expect(try await store.save(image: Self.image, aspect: wide, crop: PixelRect(x: 0, y: 0, width: 16, height: 9), expected: 0).0.revision == 1)
        }
    }

    @Test func concurrentSavesEachGetTheirOwnRevision() async throws {
        for (name, store, cleanup) in try Self.stores() {
            defer { cleanup() }
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
