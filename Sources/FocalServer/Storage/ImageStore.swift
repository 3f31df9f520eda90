public import Foundation

/// Where uploaded images are kept, by identity (the SHA-256 of their bytes, hex).
public protocol ImageStore: Sendable {
    /// Stores `data` under `id` (storing the same bytes twice is harmless).
    func put(_ data: Data, id: String) async throws
    /// The bytes stored under `id`, or nil.
    func get(_ id: String) async throws -> Data?
}
