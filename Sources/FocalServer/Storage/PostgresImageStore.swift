import Focal
import Foundation

/// Uploads in the PostgreSQL database replicas share (`PostgresOverrideStore`'s `upload` table),
/// each call within the store's write deadline and behind its breaker, without counting on it
/// (slow uploads of 64 MiB must not take the saved crops out).
struct PostgresImageStore: ImageStore {
    let database: PostgresOverrideStore
    let gateway: SavedCropGateway

    func put(_ data: Data, id: String) async throws {
        try await gateway.call(gateway.writeDeadline, counted: false) { [database] in try await database.putUpload(data, id: id) }
    }

    func get(_ id: String) async throws -> Data? {
        try await gateway.call(gateway.writeDeadline, counted: false) { [database] in try await database.upload(id) }
    }
}
