import FocalCore
import Synchronization

/// Subjects found per image identity and detector settings, least recently used dropped first.
/// Kept apart from the result caches: one detection serves every target and option. An entry
/// remembers which stages ran (by their ids), so a request that needs more runs only what is missing.
final class DetectionCache: Sendable {
    struct Key: Hashable, Sendable {
        let identity: String
        let detectors: String
    }

    struct Entry: Sendable {
        /// What was found, per stage that ran (by `DetectionStage.id`).
        var found: [String: [Subject]]
        /// Everything found by `stages`, in their order.
        func subjects(_ stages: [String]) -> [Subject] { stages.flatMap { found[$0] ?? [] } }
    }

    private let store: Mutex<LRUCache<Key, Entry>>

    init(capacity: Int) { store = Mutex(LRUCache(capacity: capacity)) }

    func entry(for key: Key) -> Entry? {
        store.withLock { $0.value(for: key) }
    }

    func store(_ entry: Entry, for key: Key) {
        store.withLock { _ = $0.insert(entry, for: key, cost: 1) }
    }
}
