public import FocalFetch
public import Foundation
import Synchronization

/// Objects (`s3://BUCKET/KEY`) outside a crop: their identities for a service's index of a
/// bucket, and their bytes for a service that sends an original.
extension FocalPipeline {
    /// The SHA-256 (hex) of an object's bytes: from memory when its ETag is unchanged (one
    /// `HEAD`), else read (within the byte limit) and hashed on the work pool.
    /// - Parameter etag: The ETag a listing gave, when known: then not even a `HEAD` is needed.
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded` when the pool is full.
    public func contentID(of address: ObjectAddress, etag: String? = nil) async throws -> String {
        let store = try objectStore(address)
        if let known = objectTags.withLock({ $0[address] }) {
            if let etag, etag == known.etag { return known.contentID }
            if etag == nil, try await store.head(address).etag == known.etag { return known.contentID }
        }
        // Read inside an admitted job: its bytes count on the memory budget while they are hashed.
        return try await admitted {
            let object = try await readObject(address)
            let contentID = try await runNative { ContentDigest.of(object.data) }
            if let etag = object.etag { rememberObject(address, etag: etag, contentID: contentID) }
            return contentID
        }
    }

    /// An object's bytes, within the byte limit, read inside an admitted job (its bytes on the
    /// memory budget while they arrive; refused with `NativeWorkPool.Overloaded` when it is spent).
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded`.
    public func objectData(_ address: ObjectAddress) async throws -> Data { try await admitted { try await readObject(address).data } }

    /// Remembers what an object read had, so that while its ETag holds it is known without a read.
    func rememberObject(_ address: ObjectAddress, etag: String, contentID: String) {
        objectTags.withLock { tags in
            if tags.count >= Self.objectTagEntries, tags[address] == nil, let any = tags.keys.first { tags[any] = nil }
            tags[address] = (etag, contentID)
        }
    }
}
