import Crypto
import Focal
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The identities (SHA-256 of the bytes, hex) of the images under the root folder, remembered by
/// path, size and modification time so a file is hashed again only when it changes; and the way
/// back from an identity to its file.
public final class ImageCatalog: Sendable {
    /// One photo under the root.
    public struct Entry: Hashable, Sendable, Codable {
        /// The path relative to the root.
        public var path: String
        /// Its identity.
        public var id: String
    }

    private struct Stamp: Hashable {
        let size: Int
        let modified: Double
    }

    private struct State {
        var byPath: [String: (stamp: Stamp, id: String)] = [:]
        var byID: [String: String] = [:]
    }

    private let resolver: SourceResolver
    private let maxBytes: Int
    private let state = Mutex(State())
    /// The most files remembered; beyond it the memory is cleared and refilled as needed.
    static let capacity = 100_000

    /// Creates a catalog over the resolver's root.
    /// - Parameters:
    ///   - resolver: Resolves relative paths under the root.
    ///   - maxBytes: Files larger than this are not hashed (the image limit refuses them anyway).
    public init(resolver: SourceResolver, maxBytes: Int) {
        self.resolver = resolver
        self.maxBytes = maxBytes
    }

    /// The identity of a file under the root (its real path and relative path), hashing it when
    /// it is new or changed; nil when it cannot be read.
    public func identity(path: String, relative: String) async -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let size = Int(exactly: info.st_size), size <= maxBytes
        else { return nil }
        let stamp = Stamp(size: size, modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
        if let known = state.withLock({ $0.byPath[path] }), known.stamp == stamp { return known.id }
        let computed = try? await ThreadExecutor().run { () -> String? in Self.digest(path: path, limit: size) }
        guard let id = computed ?? nil else { return nil }
        state.withLock { state in
            if state.byPath.count >= Self.capacity { state = State() }
            state.byPath[path] = (stamp, id)
            state.byID[id] = relative
        }
        return id
    }

    /// The relative path of a file with this identity seen so far, if any.
    public func path(for id: String) -> String? { state.withLock { $0.byID[id] } }

    /// The images directly under the root and one folder down, sorted by path, with identities.
    public func list(limit: Int = 500) async -> [Entry] {
        guard let root = resolver.root else { return [] }
        let extensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "tif", "tiff", "heic", "heif", "avif"]
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
        }
        var entries: [Entry] = []
        for relative in relatives where extensions.contains((relative as NSString).pathExtension.lowercased()) {
            guard entries.count < limit, case let .file(path, _)? = try? resolver.file(relative),
                let id = await identity(path: path, relative: relative)
            else { continue }
            entries.append(Entry(path: relative, id: id))
        }
        return entries
    }

    /// SHA-256 of a file's first `limit` bytes, in hex.
    static func digest(path: String, limit: Int) -> String? {
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
