import Synchronization

/// Finished results in memory, bounded in bytes; the least recently used go first.
final class ResultCache: Sendable {
    private let store: Mutex<LRUCache<ResultKey, CropResult>>

    /// - Parameter capacity: The most bytes kept; 0 turns the cache off.
    init(capacity: Int) { store = Mutex(LRUCache(capacity: capacity)) }

    func result(for key: ResultKey) -> CropResult? {
        store.withLock { $0.value(for: key) }
    }

    func store(_ result: CropResult, for key: ResultKey) {
        store.withLock { _ = $0.insert(result, for: key, cost: result.cost) }
    }

    /// Entries and bytes held now.
    var usage: (entries: Int, bytes: Int) {
        store.withLock { ($0.count, $0.totalCost) }
    }
}
