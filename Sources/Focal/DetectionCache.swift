import FocalCore
import Synchronization

/// Subjects found per image identity and detector settings, least recently used dropped first.
/// Kept apart from the result caches: one detection serves every target and option. An entry
/// remembers which stages ran, so a request that needs more runs only what is missing.
final class DetectionCache: Sendable {
    struct Key: Hashable, Sendable {
        let identity: String
        let detectors: String
    }

    /// A stage of detection.
    enum Stage: Hashable, Sendable, CaseIterable {
        /// Faces, and the caller's own detectors.
        case faces
        /// Cats, dogs and people.
        case objects
        /// The salient region.
        case saliency
    }

    struct Entry: Sendable {
        /// What was found, per stage that ran.
        var found: [Stage: [Subject]]
        /// Everything found so far, in stage order.
        var subjects: [Subject] { Stage.allCases.flatMap { found[$0] ?? [] } }
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
