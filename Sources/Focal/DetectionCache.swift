import Synchronization

/// Subjects found per image content and detector settings, least recently used dropped first.
final class DetectionCache: Sendable {
    struct Key: Hashable, Sendable {
        let content: String
        let detectors: String
    }

    private struct State {
        var entries: [Key: (subjects: [Subject], stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) { self.capacity = max(0, capacity) }

    func subjects(for key: Key) -> [Subject]? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key] = (entry.subjects, state.clock)
            return entry.subjects
        }
    }

    func store(_ subjects: [Subject], for key: Key) {
        guard capacity > 0 else { return }
        state.withLock { state in
            state.clock += 1
            state.entries[key] = (subjects, state.clock)
            if state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp }) {
                state.entries.removeValue(forKey: oldest.key)
            }
        }
    }
}
