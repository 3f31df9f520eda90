public import FocalFetch
public import Foundation
import FocalRuntime
import Synchronization

/// The objects (`s3://BUCKET/KEY`) a pipeline reads, in one place: its store's client, each
/// object's identity by what the store says of it (its ETag, no download), and what each read
/// had, so that an unchanged object is known by a `HEAD` instead of a download. A pipeline owns
/// one (`FocalPipeline.objects`) and reads its `s3://` inputs through it (`ObjectReader`); a
/// service also identifies a bucket's photos and sends originals with it.
public final class ObjectSource: Sendable {
    /// The store's client; nil when none is configured.
    private let client: S3Client?
    /// The most bytes one object may have (`ImageLimits.maxInputBytes`).
    private let maxBytes: Int
    private let admission: Admission
    private let pool: NativeWorkPool
    /// What each object read had: its ETag and content identity.
    private let tags = Mutex<[ObjectAddress: (etag: String, contentID: String)]>([:])
    private let reads = Atomic<Int>(0)
    /// The most objects `tags` remembers.
    static let tagEntries = 8192

    init(settings: ObjectStorageSettings?, maxBytes: Int, admission: Admission, pool: NativeWorkPool) {
        client = settings.map { S3Client(settings: $0) }
        self.maxBytes = maxBytes
        self.admission = admission
        self.pool = pool
    }

    /// Objects read so far (counted among the pipeline's downloads).
    var readCount: Int { reads.load(ordering: .relaxed) }

    /// An object's identity (64 hex digits): from what the store says of it when it gives an ETag
    /// (`id(of:etag:size:)`: no download), else the SHA-256 of its bytes, read (within the
    /// byte limit, on the pipeline's memory budget) and hashed on the work pool.
    /// - Parameters:
    ///   - address: The object.
    ///   - etag: The ETag a listing gave, when known; with `size`, not even a `HEAD` is needed.
    ///   - size: The object's length the listing gave.
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded` when the pool is full.
    public func contentID(of address: ObjectAddress, etag: String? = nil, size: Int? = nil) async throws -> String {
        let store = try store(for: address)
        if let etag, let size { return remember(address, etag: etag, size: size) }
        let head = try await store.head(address)
        if let etag = head.etag { return remember(address, etag: etag, size: head.size) }
        // A store that names no version: the bytes are the identity, read inside an admitted job.
        return try await admission.run {
            let object = try await read(address)
            return try await pool.run { ContentDigest.of(object.data) }
        }
    }

    /// An object's bytes, within the byte limit, read inside an admitted job, with its identity
    /// as `contentID(of:)` gives it (by the ETag the read came with, else by the bytes): a caller
    /// that found the object by an identity sends it only while it is still that version.
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded`.
    public func version(_ address: ObjectAddress) async throws -> (data: Data, contentID: String) {
        try await admission.run {
            let object = try await read(address)
            if let etag = object.etag { return (object.data, Self.id(of: address, etag: etag, size: object.data.count)) }
            return (object.data, try await pool.run { ContentDigest.of(object.data) })
        }
    }

    /// An object's bytes, within the byte limit, read inside an admitted job (on the memory
    /// budget while they arrive; refused with `NativeWorkPool.Overloaded` when it is spent).
    /// - Throws: `StorageError`, or `NativeWorkPool.Overloaded`.
    public func data(_ address: ObjectAddress) async throws -> Data { try await admission.run { try await read(address).data } }

    /// The identity of an object's version from what its store says of it: the SHA-256 (hex) of
    /// its address, its ETag (quotes and a weak mark left out) and its length. A bucket of any
    /// size is identified by its listing, with no object read; the address is part of it, so
    /// that two objects share an identity only when they are one version of one key.
    public static func id(of address: ObjectAddress, etag: String, size: Int) -> String {
        var tag = Substring(etag.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = tag.dropFirst().dropLast() }
        return ContentDigest.of(Data("s3-object\n\(address.bucket)\n\(address.key)\n\(tag)\n\(size)".utf8))
    }

    // MARK: - For the pipeline's reader

    /// What the store says of an object (one `HEAD`).
    func head(_ address: ObjectAddress) async throws -> S3Client.Head { try await store(for: address).head(address) }

    /// An object's bytes and ETag, reserved on the current job's pass as they arrive.
    func read(_ address: ObjectAddress) async throws -> S3Client.Object {
        let store = try store(for: address)
        reads.add(1, ordering: .relaxed)
        let object = try await store.get(address, maxBytes: maxBytes) { try Admission.reserve($0) }
        try Task.checkCancellation()
        return object
    }

    /// Remembers an object's ETag and returns its identity, so that while the ETag holds it is
    /// known without a read.
    @discardableResult
    func remember(_ address: ObjectAddress, etag: String, size: Int) -> String {
        let id = Self.id(of: address, etag: etag, size: size)
        tags.withLock { tags in
            if tags.count >= Self.tagEntries, tags[address] == nil, let any = tags.keys.first { tags[any] = nil }
            tags[address] = (etag, id)
        }
        return id
    }

    /// What the last read or `HEAD` of an object had, when remembered.
    func known(_ address: ObjectAddress) -> (etag: String, contentID: String)? { tags.withLock { $0[address] } }

    /// Forgets an object (it was replaced).
    func forget(_ address: ObjectAddress) { tags.withLock { $0[address] = nil } }

    /// The client, or `storage.not_configured`.
    private func store(for address: ObjectAddress) throws -> S3Client {
        guard let client else {
            throw StorageError(
                .storageNotConfigured, address: address.description,
                "no object storage is configured; set AWS_ENDPOINT_URL_S3 (or AWS_ENDPOINT_URL), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        return client
    }
}
