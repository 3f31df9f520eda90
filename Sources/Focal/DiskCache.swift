import FocalImaging
import Foundation
import Synchronization

/// Finished results in a folder, bounded in bytes, surviving restarts.
///
/// Each entry is one file named by the SHA-256 of its key: a signature line, a JSON header (the
/// key, format, plan, subjects, and the payload's length and SHA-256), then the encoded image.
/// Files are written under a temporary name and renamed. An entry that cannot be read or does
/// not check out is deleted and counts as a miss. Recency is the file's modification time, so
/// the least recently used entries go first, across restarts too.
final class DiskCache: Sendable {
    static let signature = Data("FOCAL-CACHE 1\n".utf8)
    static let suffix = ".focal"

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
        var discarded = 0
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

    /// The result stored under `key`, or nil. Blocking: call from the native pool.
    func read(_ key: ResultKey) -> CropResult? {
        let name = key.fileName + Self.suffix
        guard prepared(), let file = FileManager.default.contents(atPath: path(name)) else { return nil }
        guard let (result, fileSize) = decode(file, key: key) else {
            discard(name)
            return nil
        }
        // Touch: the entry becomes the most recently used, here and for the next process.
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path(name))
        let dropped = state.withLock { state -> [(String, Void)] in
            guard state.index?.value(for: name) == nil else { return [] }
            // Written by another process sharing the folder: track it from now on.
            return state.index?.insert((), for: name, cost: fileSize) ?? []
        }
        for (victim, _) in dropped { try? FileManager.default.removeItem(atPath: path(victim)) }
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
        guard file.count <= capacity else { return }
        do {
            try AtomicFile.write(file, to: path(name))
        } catch {
            state.withLock { $0.writeFailures += 1 }
            return
        }
        let dropped = state.withLock { $0.index?.insert((), for: name, cost: file.count) ?? [] }
        for (victim, _) in dropped { try? FileManager.default.removeItem(atPath: path(victim)) }
    }

    /// Entries and bytes on disk as this process knows them, entries discarded as unreadable, and
    /// writes that failed.
    var usage: (entries: Int, bytes: Int, discarded: Int, writeFailures: Int) {
        state.withLock { ($0.index?.count ?? 0, $0.index?.totalCost ?? 0, $0.discarded, $0.writeFailures) }
    }

    private func path(_ name: String) -> String { folder + "/" + name }

    private func discard(_ name: String) {
        try? FileManager.default.removeItem(atPath: path(name))
        state.withLock { state in
            state.index?.removeValue(for: name)
            state.discarded += 1
        }
    }

    /// The entry in `file` and its size, when it is whole and filed under `key`.
    private func decode(_ file: Data, key: ResultKey) -> (CropResult, Int)? {
        guard file.starts(with: Self.signature),
            let newline = file[Self.signature.count...].firstIndex(of: 0x0A),
            let header = try? JSONDecoder().decode(Header.self, from: file[Self.signature.count..<newline]),
            header.key == key.text
        else { return nil }
        let payload = Data(file[(newline + 1)...])
        guard payload.count == header.length, ContentDigest.of(payload) == header.sha256 else { return nil }
        return (
            CropResult(
                data: payload, format: header.format, plan: header.plan, detected: header.detected, origin: .diskCache,
                key: key.fileName),
            file.count
        )
    }

    /// Creates the folder and reads its entries into the recency index, once.
    private func prepared() -> Bool {
        state.withLock { state in
            if state.index != nil { return true }
            let manager = FileManager.default
            guard (try? manager.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
                let names = try? manager.contentsOfDirectory(atPath: folder)
            else {
                state.writeFailures += 1
                return false
            }
            var found: [(name: String, size: Int, date: Date)] = []
            for name in names {
                guard let attributes = try? manager.attributesOfItem(atPath: path(name)) else { continue }
                let date = attributes[.modificationDate] as? Date ?? .distantPast
                if name.hasSuffix(Self.suffix) {
                    found.append((name, (attributes[.size] as? NSNumber)?.intValue ?? 0, date))
                } else if name.hasPrefix("."), name.hasSuffix(".tmp"), date < Date(timeIntervalSinceNow: -3600) {
                    // Left by a process that died while writing.
                    try? manager.removeItem(atPath: path(name))
                }
            }
            var index = LRUCache<String, Void>(capacity: capacity)
            for entry in found.sorted(by: { $0.date < $1.date }) {
                for (victim, _) in index.insert((), for: entry.name, cost: entry.size) {
                    try? manager.removeItem(atPath: path(victim))
                }
            }
            state.index = index
            return true
        }
    }
}
