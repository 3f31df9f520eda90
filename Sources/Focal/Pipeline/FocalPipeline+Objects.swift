public import FocalFetch
public import Foundation
import Synchronization

/// Objects (`s3://BUCKET/KEY`) outside a crop: their identities (by ETag) for a service's index of a
/// bucket, and their bytes for a service that sends an original.
extension FocalPipeline {
    /// An object's identity (64 hex digits): from what the store says of it when it gives an ETag
    /// (`objectID(_:etag:size:)`: no download), else the SHA-256 of its bytes, read (within the
    /// byte limit) and hashed on the work pool.
    /// - Parameters:
    ///   - etag: The ETag a listing gave, when known; with `size`, not even a `HEAD` is needed.
    ///   - size: The object's length the listing gave.
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded` when the pool is full.
    public func contentID(of address: ObjectAddress, etag: String? = nil, size: Int? = nil) async throws -> String {
        let store = try objectStore(address)
        if let etag, let size {
            let id = Self.objectID(address, etag: etag, size: size)
            rememberObject(address, etag: etag, contentID: id)
            return id
        }
        let head = try await store.head(address)
        if let etag = head.etag {
            let id = Self.objectID(address, etag: etag, size: head.size)
            rememberObject(address, etag: etag, contentID: id)
            return id
        }
        // A store that names no version: the bytes are the identity. Read inside an admitted
        // job: they count on the memory budget while they are hashed.
        return try await admitted {
            let object = try await readObject(address)
            return try await runNative { ContentDigest.of(object.data) }
        }
    }

    /// The identity of an object's version from what its store says of it: the SHA-256 (hex) of
    /// its address, its ETag (quotes and a weak mark left out) and its length. A bucket of any
    /// size is identified by its listing, with no object read (a 100,000-key bucket cost each
    /// replica 100,000 downloads when objects were identified by their bytes); the address is part
    /// of it, so that two objects share an identity only when they are one version of one key.
    public static func objectID(_ address: ObjectAddress, etag: String, size: Int) -> String {
        var tag = Substring(etag.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return ContentDigest.of(Data("s3-object\n\(address.bucket)\n\(address.key)\n\(tag)\n\(size)".utf8))
    }

    /// An object's bytes, within the byte limit, read inside an admitted job, with its identity
    /// as `contentID(of:)` gives it (by the ETag the read came with, else by the bytes): a caller
    /// that found the object by an identity sends it only while it is still that version.
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded`.
    public func objectVersion(_ address: ObjectAddress) async throws -> (data: Data, contentID: String) {
        try await admitted {
            let object = try await readObject(address)
            if let etag = object.etag { return (object.data, Self.objectID(address, etag: etag, size: object.data.count)) }
            return (object.data, try await runNative { ContentDigest.of(object.data) })
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
