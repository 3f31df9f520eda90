import Synchronization

/// Subjects found per image identity and detector settings, least recently used dropped first.
/// Kept apart from the result caches: one detection serves every target and option.
final class DetectionCache: Sendable {
    struct Key: Hashable, Sendable {
        let identity: String
        let detectors: String
    }

    private let store: Mutex<LRUCache<Key, [Subject]>>

    init(capacity: Int) { store = Mutex(LRUCache(capacity: capacity)) }

    func subjects(for key: Key) -> [Subject]? {
        store.withLock { $0.value(for: key) }
    }

    func store(_ subjects: [Subject], for key: Key) {
        store.withLock { _ = $0.insert(subjects, for: key, cost: 1) }
    }
}
