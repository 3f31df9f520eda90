/// Values by key with a total cost limit; the least recently used go first when it is exceeded.
/// Not synchronised: callers keep it inside a lock.
struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Entry {
        var value: Value
        var cost: Int
        var newer: Key?
        var older: Key?
    }

    /// The most total cost kept.
    let capacity: Int
    private(set) var totalCost = 0
    private var entries: [Key: Entry] = [:]
    private var newest: Key?
    private var oldest: Key?

    init(capacity: Int) { self.capacity = max(0, capacity) }

    var count: Int { entries.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        unlink(key)
        linkNewest(key)
        return entry.value
    }

    /// Whether `key` is present, without touching its recency.
    func contains(_ key: Key) -> Bool { entries[key] != nil }

    /// Stores `value` as the most recently used and drops the least recently used until the total
    /// fits. A value costing more than the whole capacity is not stored.
    /// - Returns: The keys and values dropped to make room.
    @discardableResult
    mutating func insert(_ value: Value, for key: Key, cost: Int) -> [(Key, Value)] {
        removeValue(for: key)
        guard cost <= capacity else { return [] }
        entries[key] = Entry(value: value, cost: cost)
        totalCost += cost
        linkNewest(key)
        var dropped: [(Key, Value)] = []
        while totalCost > capacity, let victim = oldest, let value = removeValue(for: victim) {
            dropped.append((victim, value))
        }
        return dropped
    }

    /// Removes `key`, returning its value.
    @discardableResult
    mutating func removeValue(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        unlink(key)
        entries[key] = nil
        totalCost -= entry.cost
        return entry.value
    }

    /// Every key, least recently used first.
    var keysOldestFirst: [Key] {
        var keys: [Key] = []
        var cursor = oldest
        while let key = cursor {
            keys.append(key)
            cursor = entries[key]?.newer
        }
        return keys
    }

    private mutating func unlink(_ key: Key) {
        guard let entry = entries[key] else { return }
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        entries[key]?.newer = nil
        entries[key]?.older = nil
    }

    private mutating func linkNewest(_ key: Key) {
        entries[key]?.older = newest
        entries[key]?.newer = nil
        if let newest { entries[newest]?.newer = key }
        newest = key
        if oldest == nil { oldest = key }
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Entry: Sendable where Key: Sendable, Value: Sendable {}
