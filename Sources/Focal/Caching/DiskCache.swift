import FocalImaging
import FocalRuntime
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finished results in a folder, bounded in bytes, surviving restarts.
///
/// Each entry is one file named by the SHA-256 of its key: a signature line, a JSON header (the
/// key, format, plan, subjects, and the payload's length and SHA-256), then the encoded image.
/// Files are written under a temporary name and renamed. An entry that cannot be read or does
/// not check out is deleted and counts as a miss. Recency is the file's modification time, so
/// the least recently used entries go first, across restarts too.
///
/// - The bound counts the blocks files take on disk, not their apparent sizes.
/// - The folder is listed once, on a thread of its own, when the cache is first used: reads and
///   writes go on meanwhile (a folder of 300,000 entries takes seconds to list), and what was
///   written meanwhile joins the recency index once it is built.
/// - A file named like an entry that is not one Focal could have written (larger than
///   `maxEntryBytes` or the whole cache, a link to a device, a pipe) is never read, only counted
///   (`ignored`); one that is not whole is deleted.
/// - A write that fails (a full or read-only disk, a folder gone) is counted (`writeFailures`);
///   the cache is an optimisation, so it never fails a crop.
final class DiskCache: Sendable {
    static let signature = Data("FOCAL-CACHE 1\n".utf8)
    static let suffix = ".focal"
    /// The largest entry ever read or written: more than any output the limits allow.
    static let maxEntryBytes = 128 << 20
    /// The most writes that wait to join the index while the folder is listed.
    static let maxPending = 10_000

    private struct Header: Codable {
        let key: String
        let format: ImageFormat
        let plan: CropPlan
        let detected: [Subject]
        let length: Int
        let sha256: String
    }

    private struct State {
        var index: LRUCache<String, Void>?
        /// Whether the folder is being listed now (then `index` is nil).
        var listing = false
        /// When listing the folder last failed: it is tried again 10 s later.
        var listingFailed: ContinuousClock.Instant?
        /// Entries written while the folder was being listed, with the bytes they take.
        var pending: [(String, Int)] = []
        var discarded = 0
        var ignored = 0
        var writeFailures = 0
    }

    let folder: String
    let capacity: Int
    private let state: Mutex<State>

    init(_ settings: DiskCacheSettings) {
        folder = settings.folder.hasSuffix("/") && settings.folder.count > 1 ? String(settings.folder.dropLast()) : settings.folder
        capacity = max(0, settings.maxBytes)
        state = Mutex(State())
    }

    /// The most bytes one entry may have.
    private var entryLimit: Int { min(capacity, Self.maxEntryBytes) }

    /// The result stored under `key`, or nil. Blocking: call from the native pool.
    func read(_ key: ResultKey) -> CropResult? {
        let name = key.fileName + Self.suffix
        guard prepared() else { return nil }
        let file: Data
        do {
            file = try InputFile.read(path(name), maxBytes: entryLimit)
        } catch {
            switch error.code {
            case .inputNotFound: break
            // Empty: damaged (Focal never writes one), so it goes like any entry that does not check out.
            case .inputEmpty: discard(name)
            // Anything else Focal did not write is left alone, unread.
            default: state.withLock { $0.ignored += 1 }
            }
            return nil
        }
        guard let result = decode(file, key: key) else {
            discard(name)
            return nil
        }
        // Touch: the entry becomes the most recently used, here and for the next process.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path(name))
        let size = Self.diskBytes(path(name), apparent: file.count)
        let dropped = state.withLock { state -> [(String, Void)] in
            guard state.index?.value(for: name) == nil else { return [] }
            // Written by another process sharing the folder: track it from now on.
            return state.index?.insert((), for: name, cost: size) ?? []
        }
        delete(dropped)
        return result
    }

    /// Stores `result` under `key`, deleting the least recently used entries beyond the bound.
    /// A failure to write is counted, never thrown: the cache is an optimisation.
    func write(_ result: CropResult, for key: ResultKey) {
        guard prepared() else { return }
        let name = key.fileName + Self.suffix
        let header = Header(
            key: key.text, format: result.format, plan: result.plan, detected: result.detected,
            length: result.data.count, sha256: ContentDigest.of(result.data))
        guard let json = try? JSONEncoder().encode(header) else { return }
        var file = Self.signature
        file.append(json)
        file.append(0x0A)
        file.append(result.data)
        // An entry larger than the whole cache is not kept (the index would not track it).
        guard file.count <= entryLimit else { return }
        do {
            try AtomicFile.write(file, to: path(name))
        } catch {
            state.withLock { $0.writeFailures += 1 }
            return
        }
        let size = Self.diskBytes(path(name), apparent: file.count)
        // Its blocks may take more than the whole cache: then it is not kept either.
        guard size <= capacity else {
            try? FileManager.default.removeItem(atPath: path(name))
            return
        }
        let dropped = state.withLock { state -> [(String, Void)] in
            guard state.index != nil else {
                // While the folder is listed, at most `maxPending` writes wait to join the index;
                // past them the entry is not kept (the bound could not be kept for it).
                guard state.pending.count < Self.maxPending else { return [(name, ())] }
                state.pending.append((name, size))
                return []
            }
            return state.index?.insert((), for: name, cost: size) ?? []
        }
        delete(dropped)
    }

    /// Entries and bytes on disk as this process knows them (none while the folder is being
    /// listed), entries discarded as unreadable, files ignored as foreign, and writes that failed.
    var usage: (entries: Int, bytes: Int, discarded: Int, ignored: Int, writeFailures: Int) {
        state.withLock { ($0.index?.count ?? 0, $0.index?.totalCost ?? 0, $0.discarded, $0.ignored, $0.writeFailures) }
    }

    /// Whether the folder has been listed and the recency index built.
    var isIndexed: Bool { state.withLock { $0.index != nil } }

    private func path(_ name: String) -> String { folder + "/" + name }

    private func discard(_ name: String) {
        try? FileManager.default.removeItem(atPath: path(name))
        state.withLock { state in
            state.index?.removeValue(for: name)
            state.discarded += 1
        }
    }

    private func delete(_ entries: [(String, Void)]) {
        for (victim, _) in entries { try? FileManager.default.removeItem(atPath: path(victim)) }
    }

    /// The bytes a file takes on disk: its blocks; `apparent` rounded up to 4 KiB when it cannot
    /// be told.
    static func diskBytes(_ path: String, apparent: Int) -> Int {
        var status = stat()
        if stat(path, &status) == 0, status.st_blocks > 0 {
            let (bytes, overflow) = Int(status.st_blocks).multipliedReportingOverflow(by: 512)
            return overflow ? Int.max : max(bytes, apparent)
        }
        return (apparent + 4095) / 4096 * 4096
    }

    /// The entry in `file`, when it is whole and filed under `key`.
    private func decode(_ file: Data, key: ResultKey) -> CropResult? {
        guard file.starts(with: Self.signature),
            let newline = file[Self.signature.count...].firstIndex(of: 0x0A),
            let header = try? JSONDecoder().decode(Header.self, from: file[Self.signature.count..<newline]),
            header.key == key.text
        else { return nil }
        let payload = Data(file[(newline + 1)...])
        guard payload.count == header.length, ContentDigest.of(payload) == header.sha256 else { return nil }
        return CropResult(
            data: payload, format: header.format, plan: header.plan, detected: header.detected, origin: .diskCache, key: key.fileName)
    }

    /// Creates the folder and starts listing it into the recency index, once; false when the
    /// folder cannot be made.
    private func prepared() -> Bool {
        let start = state.withLock { state -> Bool? in
            if state.index != nil || state.listing { return false }
            if let failed = state.listingFailed, ContinuousClock.now - failed < .seconds(10) { return false }
            guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil else {
                state.writeFailures += 1
                return nil
            }
            state.listing = true
            return true
        }
        guard let start else { return false }
        if start {
            let thread = Thread { [self] in buildIndex() }
            thread.name = "focal-disk-cache-index"
            thread.start()
        }
        return true
    }

    /// Lists the folder and builds the recency index (oldest first), then adds what was written
    /// meanwhile and deletes what the bound leaves out.
    private func buildIndex() {
        let manager = FileManager.default
        var found: [(name: String, size: Int, date: Double)] = []
        let hourAgo = Date().timeIntervalSince1970 - 3600
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else {
            // Tried again later: meanwhile reads and writes go on, tracked in `pending`.
            state.withLock { state in
                state.listing = false
                state.listingFailed = .now
            }
            return
        }
        for name in names {
            var status = stat()
            guard lstat(path(name), &status) == 0 else { continue }
            let date = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            let size = Int(status.st_size)
            if name.hasSuffix(Self.suffix) {
                // Not a regular file, or too large to be an entry: never read, never tracked.
                guard (status.st_mode & S_IFMT) == S_IFREG, size <= entryLimit else {
                    state.withLock { $0.ignored += 1 }
                    continue
                }
                let blocks = Int(status.st_blocks).multipliedReportingOverflow(by: 512)
                found.append((name, blocks.overflow ? Int.max : max(blocks.partialValue, size), date))
            } else if name.hasPrefix("."), name.hasSuffix(".tmp"), date < hourAgo {
                // Left by a process that died while writing.
                try? manager.removeItem(atPath: path(name))
            }
        }
        var index = LRUCache<String, Void>(capacity: capacity)
        var dropped: [(String, Void)] = []
        for entry in found.sorted(by: { $0.date < $1.date }) {
            dropped += index.insert((), for: entry.name, cost: entry.size)
        }
        // The folder is within its bound before the index is used.
        delete(dropped)
        let built = index
        dropped = state.withLock { state -> [(String, Void)] in
            var index = built
            var more: [(String, Void)] = []
            for (name, size) in state.pending { more += index.insert((), for: name, cost: size) }
            // A few at most (what was written while listing): deleted before the index is used.
            delete(more)
            state.pending = []
            state.index = index
            state.listing = false
            return more
        }
    }
}
