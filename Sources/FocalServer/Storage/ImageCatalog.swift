import Crypto
public import Focal
import Foundation
import Synchronization


/// The identities (SHA-256 of the bytes, hex) of the images under the root folder (or bucket),
/// and the way back from an identity to its file (or object): an index kept up to date off the
/// request path. A bucket is listed (ListObjectsV2, paginated) instead of a folder, and an
/// object is hashed again only when its ETag changes.
///
/// - A request never lists or hashes: it asks `knownIdentity(path:)` (one `stat`) and
///   `path(for:)` (a dictionary look-up). An unknown id is a miss at once.
/// - `refresh()` lists the root (and one folder down) and hashes what is new or changed, on the
///   pipeline's work pool; the service runs it at start and every `interval` in the background.
///   Files are remembered by path, size and modification time, so a file is hashed again only
///   when it changes; files that are gone are forgotten.
/// - A request that identifies a file itself (the pipeline hashes it inside its admitted job)
///   tells the catalog with `remember`, so the next request for it needs no hashing.
public final class ImageCatalog: Sendable {
    /// One photo under the root.
    public struct Entry: Hashable, Sendable, Codable {
        /// The path relative to the root.
        public var path: String
        /// Its identity.
        public var id: String
    }

    /// A file's size and modification time (an object's size and ETag): when both are
    /// unchanged, so is its identity.
    public struct Stamp: Hashable, Sendable {
        let size: Int
        let modified: Double
        var tag: String? = nil
    }

    /// One object a bucket listing gave: its path relative to the root, address, size and ETag.
    public struct ListedObject: Sendable {
        public let relative: String
        public let address: ObjectAddress
        public let size: Int
        public let etag: String?
    }

    /// How a bucket root is indexed: its listing (at most `capacity` objects under the prefix)
    /// and an object's identity from what the listing says of it (its ETag and length).
    public struct BucketIndexing: Sendable {
        public let list: @Sendable (_ capacity: Int) async throws -> [ListedObject]
        public let identify: @Sendable (ObjectAddress, _ etag: String?, _ size: Int) async throws -> String?

        public init(
            list: @escaping @Sendable (Int) async throws -> [ListedObject],
            identify: @escaping @Sendable (ObjectAddress, String?, Int) async throws -> String?
        ) {
            self.list = list
            self.identify = identify
        }
    }

    private struct Known {
        let stamp: Stamp
        let id: String
        let relative: String
    }

    private struct State {
        var byPath: [String: Known] = [:]
        var byID: [String: String] = [:]
        var scanned = false
        var listed = false
        var listingFailure: ListingFailure?
    }

    /// Why the last listing of a bucket root failed.
    public struct ListingFailure: Sendable, Equatable {
        /// The error's stable code (`storage.refused`, `storage.unavailable`, …).
        public let code: String
        /// What went wrong, safe to show anyone.
        public let message: String
        /// The whole error, for the log.
        public let detail: String
    }

    /// The extensions listed as photos.
    static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "tif", "tiff", "heic", "heif", "avif"]
    /// The most files remembered (the listing stops there).
    static let capacity = 100_000

    private let resolver: SourceResolver
    private let maxBytes: Int
    private let hash: @Sendable (String, Int) async throws -> String?
    private let bucket: BucketIndexing?
    private let state = Mutex(State())

    /// Creates a catalog over the resolver's root.
    /// - Parameters:
    ///   - resolver: Resolves relative paths under the root.
    ///   - maxBytes: Files larger than this are not hashed (the image limit refuses them anyway).
    ///   - hash: Hashes a file's first bytes (path, size) where the caller wants the work done
    ///     (`digest(path:limit:)` on the pipeline's work pool, for the service).
    ///   - bucket: How a bucket root is listed and its objects identified; nil for a folder root.
    public init(
        resolver: SourceResolver, maxBytes: Int, bucket: BucketIndexing? = nil, hash: @escaping @Sendable (String, Int) async throws -> String?
    ) {
        self.resolver = resolver
        self.maxBytes = maxBytes
        self.bucket = bucket
        self.hash = hash
    }

    /// A regular file's stamp, or nil when `path` is not one.
    public static func stamp(_ path: String) -> Stamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber).flatMap({ Int(exactly: $0.int64Value) }),
            let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return Stamp(size: size, modified: modified.timeIntervalSince1970)
    }

    /// The identity of the file at `path` when it is known and the file has not changed since;
    /// never hashes.
    public func knownIdentity(path: String, stamp: Stamp) -> String? {
        state.withLock { state in state.byPath[path].flatMap { $0.stamp == stamp ? $0.id : nil } }
    }

    /// Remembers the identity of a file a request has just identified.
    public func remember(path: String, relative: String, stamp: Stamp, id: String) {
        state.withLock { state in
            guard state.byPath.count < Self.capacity || state.byPath[path] != nil else { return }
            if let old = state.byPath[path], old.id != id, state.byID[old.id] == old.relative { state.byID[old.id] = nil }
            state.byPath[path] = Known(stamp: stamp, id: id, relative: relative)
            state.byID[id] = relative
        }
    }

    /// The relative path of a file with this identity, if the index knows one.
    public func path(for id: String) -> String? { state.withLock { $0.byID[id] } }

    /// Whether the first listing of the root has finished.
    public var isScanned: Bool { state.withLock { $0.scanned } }

    /// A bucket root's listing: whether one ever worked, and why the last one failed (nil when
    /// it worked, and for a folder root).
    public var listing: (everListed: Bool, failure: ListingFailure?) { state.withLock { ($0.listed, $0.listingFailure) } }

    /// The photos the index knows, sorted by path, at most `limit`.
    public func list(limit: Int = 500) -> [Entry] {
        let entries = state.withLock { state in state.byPath.values.map { Entry(path: $0.relative, id: $0.id) } }
        return Array(entries.sorted { $0.path < $1.path }.prefix(limit))
    }

    /// Lists the root and one folder down, hashes what is new or changed, forgets what is gone.
    /// - Returns: The number of photos indexed.
    @discardableResult
    public func refresh() async -> Int {
        if resolver.bucket != nil, let bucket { return await refresh(bucket) }
        guard let root = resolver.root else {
            state.withLock { $0.scanned = true }
            return 0
        }
        let relatives = Self.photos(under: root)
        var seen: [String: Known] = [:]
        for relative in relatives {
            if Task.isCancelled { return 0 }
            guard seen.count < Self.capacity, case let .input(input, _)? = try? resolver.file(relative), case let .file(path) = input.location,
                let stamp = Self.stamp(path), stamp.size <= maxBytes
            else { continue }
            if let id = knownIdentity(path: path, stamp: stamp) {
                seen[path] = Known(stamp: stamp, id: id, relative: relative)
                continue
            }
            // Hashing waits its turn on the work pool; a full pool leaves it for the next round.
            guard let id = (try? await hash(path, stamp.size)) ?? nil else { continue }
            seen[path] = Known(stamp: stamp, id: id, relative: relative)
        }
        return replace(with: seen)
    }

    /// A bucket's refresh: its listing (a failed listing keeps what is known), each object new or
    /// changed (by ETag) identified, the ones gone forgotten.
    private func refresh(_ bucket: BucketIndexing) async -> Int {
        let listed: [ListedObject]
        do {
            listed = try await bucket.list(Self.capacity)
        } catch {
            let failure: ListingFailure
            if let error = error as? StorageError {
                failure = ListingFailure(code: error.code.rawValue, message: error.publicMessage, detail: error.detail)
            } else {
                failure = ListingFailure(code: ErrorCode.storageUnavailable.rawValue, message: "the bucket could not be listed", detail: String(describing: error))
            }
            return state.withLock { state in
                state.scanned = true
                state.listingFailure = failure
                return state.byPath.count
            }
        }
        state.withLock { state in
            state.listed = true
            state.listingFailure = nil
        }
        var seen: [String: Known] = [:]
        for object in listed where Self.extensions.contains((object.relative as NSString).pathExtension.lowercased()) && object.size <= maxBytes {
            if Task.isCancelled { return 0 }
            let path = object.address.description
            let stamp = Stamp(size: object.size, modified: 0, tag: object.etag)
            if let id = knownIdentity(path: path, stamp: stamp), object.etag != nil {
                seen[path] = Known(stamp: stamp, id: id, relative: object.relative)
                continue
            }
            guard let id = (try? await bucket.identify(object.address, object.etag, object.size)) ?? nil else { continue }
            seen[path] = Known(stamp: stamp, id: id, relative: object.relative)
        }
        return replace(with: seen)
    }

    /// Makes `seen` the index (and the way back from identities), after a listing.
    /// - Returns: The number of photos indexed.
    private func replace(with seen: [String: Known]) -> Int {
        state.withLock { state in
            state.byPath = seen
            state.byID = [:]
            for known in seen.values { state.byID[known.id] = known.relative }
            state.scanned = true
        }
        return seen.count
    }

    /// The relative paths of the photos directly under `root` and one folder down, by extension.
    static func photos(under root: String) -> [String] {
        var relatives: [String] = []
        let top = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for name in top.sorted() where !name.hasPrefix(".") {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isFolder), isFolder.boolValue {
                let inner = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + name)) ?? []
                relatives += inner.sorted().filter { !$0.hasPrefix(".") }.map { name + "/" + $0 }
            } else {
                relatives.append(name)
            }
            if relatives.count >= capacity { break }
        }
        return relatives.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
    }

    /// SHA-256 of a file's first `limit` bytes, in hex.
    public static func digest(path: String, limit: Int) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        var left = limit
        while left > 0, let chunk = try? handle.read(upToCount: min(1 << 20, left)), !chunk.isEmpty {
            hasher.update(data: chunk)
            left -= chunk.count
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
