@testable import Focal
import Foundation
import FocalTestSupport
import Testing

// The result caches (memory and disk), the detection cache, and what identifies an input.

private let astronaut = Checkout.fixture("astronaut.png")

/// A pipeline on the checkout's models with the given caches.
private func cachePipeline(
    memoryCacheBytes: Int = 64 << 20, disk: DiskCacheSettings? = nil, identifyByContent: Bool = true,
    detectors: [any SubjectDetecting] = []
) -> FocalPipeline {
    makePipeline(detectors: detectors) { configuration in
        configuration.memoryCacheBytes = memoryCacheBytes
        configuration.diskCache = disk
        configuration.identifyByContent = identifyByContent
    }
}

/// The `*.focal` entries of a cache folder, name to the bytes they take on disk (their blocks).
private func cacheEntries(_ folder: String) -> [String: Int] {
    let manager = FileManager.default
    var entries: [String: Int] = [:]
    for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(DiskCache.suffix) {
        let size = (try? manager.attributesOfItem(atPath: folder + "/" + name))?[.size] as? NSNumber
        entries[name] = DiskCache.diskBytes(folder + "/" + name, apparent: size?.intValue ?? 0)
    }
    return entries
}

/// JPEG options at `quality`: distinct cache keys whose results have nearly the same size.
private func jpeg(quality: Int) -> FocalOptions {
    FocalOptions(format: .jpeg, quality: quality)
}

@Suite struct CacheTests {
    // MARK: - Memory

    @Test("a second identical crop is a memory hit with the same bytes, rendered and detected once")
    func memoryHit() async throws {
        let counter = GateDetector(identifier: "counter", open: true)
        let pipeline = cachePipeline(detectors: [counter])
        let input = ImageInput.file(astronaut)
        let first = try await pipeline.crop(input, to: .size(width: 200, height: 200))
        let second = try await pipeline.crop(input, to: .size(width: 200, height: 200))
        #expect(first.origin == .fresh)
        #expect(second.origin == .memoryCache)
        #expect(second.data == first.data)
        #expect(second.plan == first.plan)
        #expect(second.detected == first.detected)
        let statistics = pipeline.statistics
        #expect(statistics.requests == 2)
        #expect(statistics.renders == 1)
        #expect(statistics.detections == 1)
        #expect(statistics.memoryHits == 1)
        #expect(statistics.memoryMisses == 1)
        #expect(statistics.memoryEntries == 1)
        #expect(statistics.memoryBytes >= first.data.count)
        #expect(counter.calls == 1)
    }

    @Test(
        "a change of one option misses the result cache; only accuracy misses the detection cache",
        arguments: ["padding", "quality", "format", "target", "accuracy"])
    func optionChangesMiss(change: String) async throws {
        let pipeline = cachePipeline()
        let input = ImageInput.file(astronaut)
        let target = CropTarget.aspect(width: 16, height: 9)
        let options = FocalOptions(crop: CropOptions(padding: .fraction(0.3)), format: .jpeg, quality: 85)
        var changed = (target: target, options: options)
        switch change {
        case "padding": changed.options.crop.padding = .fraction(0.1)
        case "quality": changed.options.quality = 60
        case "format": changed.options.format = .png
        case "target": changed.target = .aspect(width: 4, height: 3)
        case "accuracy": changed.options.accuracy = .accurate
        default: Issue.record("unknown change \(change)")
        }

        let base = try await pipeline.crop(input, to: target, options: options)
        let other = try await pipeline.crop(input, to: changed.target, options: changed.options)
        #expect(base.origin == .fresh)
        #expect(other.origin == .fresh, "a changed \(change) must not be answered from the cache")
        var statistics = pipeline.statistics
        #expect(statistics.renders == 2)
        #expect(statistics.memoryHits == 0)
        if change == "accuracy" {
            #expect(statistics.detections == 2, "other detector settings detect again")
            #expect(statistics.detectionCacheHits == 0)
        } else {
            #expect(statistics.detections == 1, "one detection serves every option")
            #expect(statistics.detectionCacheHits == 1)
        }
        if change == "format" {
            #expect(other.format == .png)
            #expect(try SourceImage.open(data: other.data).format == "png")
        }
        if change == "target" { #expect(other.plan.outputSize != base.plan.outputSize) }

        // Both are cached, each under its own key.
        let baseAgain = try await pipeline.crop(input, to: target, options: options)
        let otherAgain = try await pipeline.crop(input, to: changed.target, options: changed.options)
        #expect(baseAgain.origin == .memoryCache)
        #expect(baseAgain.data == base.data)
        #expect(otherAgain.origin == .memoryCache)
        #expect(otherAgain.data == other.data)
        statistics = pipeline.statistics
        #expect(statistics.renders == 2)
        #expect(statistics.memoryEntries == 2)
    }

    @Test("the memory cache stays within its bytes and drops the least recently used first")
    func memoryBound() async throws {
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 160, height: 160)
        // Measure what each of three results costs in memory.
        let probe = cachePipeline()
        var costs: [Int] = []
        for quality in [80, 81, 82] {
            let before = probe.statistics.memoryBytes
            _ = try await probe.crop(input, to: target, options: jpeg(quality: quality))
            costs.append(probe.statistics.memoryBytes - before)
        }
        let sorted = costs.sorted()
        let bound = sorted[2] + sorted[1] + sorted[0] / 2
        try #require(sorted.allSatisfy { $0 > 0 } && 3 * sorted[0] > bound, "room for two results, not three: \(costs)")

        let pipeline = cachePipeline(memoryCacheBytes: bound)
        func crop(_ quality: Int) async throws -> CropResult.Origin {
            let origin = try await pipeline.crop(input, to: target, options: jpeg(quality: quality)).origin
            let statistics = pipeline.statistics
            #expect(statistics.memoryBytes <= bound)
            #expect(statistics.memoryEntries <= 2)
            return origin
        }
        #expect(try await crop(80) == .fresh)
        #expect(try await crop(81) == .fresh)
        #expect(pipeline.statistics.memoryEntries == 2)
        #expect(pipeline.statistics.memoryBytes == costs[0] + costs[1])
        #expect(try await crop(80) == .memoryCache)  // 80 is now the most recently used
        #expect(try await crop(82) == .fresh)  // drops 81, the least recently used
        #expect(pipeline.statistics.memoryEntries == 2)
        #expect(try await crop(80) == .memoryCache)
        #expect(try await crop(81) == .fresh, "81 was the least recently used, so it went first")
        #expect(try await crop(82) == .fresh, "storing 81 again dropped 82")
        #expect(pipeline.statistics.renders == 5)
    }

    @Test("a result larger than the whole memory cache is not kept")
    func memoryOversize() async throws {
        let pipeline = cachePipeline(memoryCacheBytes: 1000)
        let input = ImageInput.file(astronaut)
        let first = try await pipeline.crop(input, to: .size(width: 300, height: 300))
        try #require(first.data.count > 1000)
        let second = try await pipeline.crop(input, to: .size(width: 300, height: 300))
        #expect(second.origin == .fresh)
        #expect(pipeline.statistics.memoryEntries == 0)
        #expect(pipeline.statistics.memoryBytes == 0)
        #expect(pipeline.statistics.renders == 2)
        #expect(pipeline.statistics.detections == 1, "the subjects are still cached")
    }

    // MARK: - Identity

    @Test("without a cache name or content identity nothing is cached; with a cache name it is")
    func identity() async throws {
        let pipeline = cachePipeline(identifyByContent: false)
        let target = CropTarget.size(width: 200, height: 200)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: astronaut))

        for input in [ImageInput.file(astronaut), .data(bytes, name: "astronaut")] {
            let before = pipeline.statistics
            let first = try await pipeline.crop(input, to: target)
            let second = try await pipeline.crop(input, to: target)
            #expect(first.origin == .fresh)
            #expect(second.origin == .fresh, "\(input) has no identity, so it is not cached")
            #expect(second.data == first.data)
            let after = pipeline.statistics
            #expect(after.renders - before.renders == 2)
            #expect(after.detections - before.detections == 2, "nor are its subjects")
        }
        #expect(pipeline.statistics.memoryEntries == 0)
        #expect(pipeline.statistics.memoryHits == 0)

        let named = ImageInput.file(astronaut, cacheName: "astronaut-v1")
        let first = try await pipeline.crop(named, to: target)
        let second = try await pipeline.crop(named, to: target)
        #expect(first.origin == .fresh)
        #expect(second.origin == .memoryCache)
        #expect(second.data == first.data)
        // The name is the identity: other bytes under the same name are the same entry.
        let chelsea = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("chelsea.png")))
        let renamed = try await pipeline.crop(.data(chelsea, cacheName: "astronaut-v1"), to: target)
        #expect(renamed.origin == .memoryCache)
        #expect(renamed.data == first.data)
        #expect(pipeline.statistics.renders == 5)
        #expect(pipeline.statistics.memoryEntries == 1)
    }

    @Test("the same bytes under other file names or data names share cache entries; new content does not")
    func contentIdentity() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: astronaut))
        try bytes.write(to: URL(fileURLWithPath: scratch.file("a.png")))
        try bytes.write(to: URL(fileURLWithPath: scratch.file("b.png")))
        let pipeline = cachePipeline()
        let target = CropTarget.size(width: 200, height: 200)

        let first = try await pipeline.crop(.file(scratch.file("a.png")), to: target)
        #expect(first.origin == .fresh)
        for input in [ImageInput.file(scratch.file("b.png")), .file(astronaut), .data(bytes, name: "x"), .data(bytes, name: "y")] {
            let again = try await pipeline.crop(input, to: target)
            #expect(again.origin == .memoryCache, "\(input) has the same content")
            #expect(again.data == first.data)
        }
        #expect(pipeline.statistics.renders == 1)
        #expect(pipeline.statistics.detections == 1)

        // The same path with new content is a new image.
        let chelsea = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("chelsea.png")))
        try chelsea.write(to: URL(fileURLWithPath: scratch.file("a.png")))
        let changed = try await pipeline.crop(.file(scratch.file("a.png")), to: target)
        #expect(changed.origin == .fresh)
        #expect(changed.data != first.data)
        #expect(changed.plan.imageSize != first.plan.imageSize)
        #expect(pipeline.statistics.renders == 2)
        #expect(pipeline.statistics.detections == 2)
        #expect(pipeline.statistics.memoryEntries == 2)
    }

    // MARK: - Disk

    @Test("a new pipeline on a warm disk cache answers from it without decoding anything")
    func warmDisk() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let settings = DiskCacheSettings(folder: scratch.file("cache"))
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 240, height: 180)
        let options = FocalOptions(crop: CropOptions(padding: .fraction(0.3)))

        let a = cachePipeline(disk: settings)
        let fresh = try await a.crop(input, to: target, options: options)
        #expect(fresh.origin == .fresh)
        #expect(cacheEntries(settings.folder).count == 1)
        #expect(a.statistics.diskEntries == 1)
        #expect(a.statistics.diskMisses == 1)

        let b = cachePipeline(disk: settings)
        let warm = try await b.crop(input, to: target, options: options)
        #expect(warm.origin == .diskCache)
        #expect(warm.data == fresh.data)
        #expect(warm.plan == fresh.plan)
        #expect(warm.detected == fresh.detected)
        #expect(warm.format == fresh.format)
        var statistics = b.statistics
        #expect(statistics.diskHits == 1)
        #expect(statistics.diskMisses == 0)
        #expect(statistics.proxyDecodes == 0)
        #expect(statistics.renders == 0)
        #expect(statistics.detections == 0)
        // The file is identified (read and hashed) inside an admitted job, then answered from disk.
        #expect(statistics.jobsStarted == 1)

        // Once read, it is kept in memory too.
        let again = try await b.crop(input, to: target, options: options)
        #expect(again.origin == .memoryCache)
        #expect(again.data == fresh.data)
        statistics = b.statistics
        #expect(statistics.diskHits == 1)
        #expect(statistics.renders == 0)
    }

    @Test(
        "a corrupt disk entry is discarded, the request is answered fresh, and the entry is rewritten",
        arguments: ["garbage", "empty", "truncated", "flipped payload byte"])
    func corruptDisk(damage: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let settings = DiskCacheSettings(folder: scratch.file("cache"))
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 200, height: 200)

        let original = try await cachePipeline(disk: settings).crop(input, to: target)
        let name = try #require(cacheEntries(settings.folder).keys.first)
        let path = settings.folder + "/" + name
        let intact = try Data(contentsOf: URL(fileURLWithPath: path))
        let damaged: Data =
            switch damage {
            case "garbage": Data(repeating: 0x5A, count: 300)
            case "empty": Data()
            case "truncated": intact.prefix(intact.count / 2)
            default: intact.dropLast() + [intact.last! ^ 0xFF]
            }
        try damaged.write(to: URL(fileURLWithPath: path))

        let b = cachePipeline(disk: settings)
        let result = try await b.crop(input, to: target)
        #expect(result.origin == .fresh)
        #expect(result.data == original.data)
        let statistics = b.statistics
        #expect(statistics.diskDiscarded == 1)
        #expect(statistics.diskHits == 0)
        #expect(statistics.diskMisses == 1)
        #expect(statistics.renders == 1)

        // Rewritten, and valid: another pipeline reads it.
        #expect(cacheEntries(settings.folder).keys.sorted() == [name])
        let rewritten = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(rewritten.starts(with: DiskCache.signature))
        let c = cachePipeline(disk: settings)
        let warm = try await c.crop(input, to: target)
        #expect(warm.origin == .diskCache)
        #expect(warm.data == original.data)
        #expect(c.statistics.diskDiscarded == 0)
    }

    @Test("the disk cache stays within its bytes and deletes the least recently used, across pipelines too")
    func diskBound() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 160, height: 160)
        let qualities = [80, 81, 82, 83]

        // Measure each entry's file in an unbounded folder; names do not depend on the folder.
        let measure = DiskCacheSettings(folder: scratch.file("measure"))
        let probe = cachePipeline(disk: measure)
        var names: [Int: String] = [:]
        var sizes: [String: Int] = [:]
        for quality in qualities {
            let before = Set(cacheEntries(measure.folder).keys)
            _ = try await probe.crop(input, to: target, options: jpeg(quality: quality))
            let entries = cacheEntries(measure.folder)
            let added = Set(entries.keys).subtracting(before)
            try #require(added.count == 1)
            names[quality] = added.first
            sizes[added.first!] = entries[added.first!]
        }
        let sorted = sizes.values.sorted()
        let bound = sorted[3] + sorted[2] + sorted[0] / 2
        try #require(3 * sorted[0] > bound, "room for two entries, not three: \(sorted)")
        let settings = DiskCacheSettings(folder: scratch.file("cache"), maxBytes: bound)

        func crop(_ pipeline: FocalPipeline, _ quality: Int) async throws -> CropResult.Origin {
            let origin = try await pipeline.crop(input, to: target, options: jpeg(quality: quality)).origin
            let entries = cacheEntries(settings.folder)
            #expect(entries.values.reduce(0, +) <= bound, "the folder holds \(entries.values.reduce(0, +)) > \(bound) bytes")
            #expect(pipeline.statistics.diskBytes <= bound)
            return origin
        }
        func kept() -> Set<Int> {
            let entries = cacheEntries(settings.folder)
            return Set(qualities.filter { entries[names[$0]!] != nil })
        }

        // One process writes 80 then 81.
        let first = cachePipeline(disk: settings)
        #expect(try await crop(first, 80) == .fresh)
        #expect(try await crop(first, 81) == .fresh)
        #expect(kept() == [80, 81])
        #expect(first.statistics.diskEntries == 2)
        #expect(first.statistics.diskBytes == sizes[names[80]!]! + sizes[names[81]!]!)

        // A second reads 80, which makes it the most recently used for the next process.
        let second = cachePipeline(disk: settings)
        #expect(try await crop(second, 80) == .diskCache)

        // A third, knowing only the files, writes 82 and deletes 81.
        let third = cachePipeline(disk: settings)
        #expect(try await crop(third, 82) == .fresh)
        #expect(kept() == [80, 82], "81 was the least recently used across processes")

        // Within one process recency is kept in memory: reading 80 makes 82 the oldest.
        #expect(try await crop(third, 80) == .diskCache)
        #expect(try await crop(third, 83) == .fresh)
        #expect(kept() == [80, 83], "82 was the least recently used in this process")
        #expect(third.statistics.diskEntries == 2)
    }

    @Test("an entry larger than the whole disk cache is not kept")
    func diskOversize() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 200, height: 200)
        let measure = DiskCacheSettings(folder: scratch.file("measure"))
        let result = try await cachePipeline(disk: measure).crop(input, to: target)
        let fileSize = try #require(cacheEntries(measure.folder).values.first)
        // Room for the image bytes, not for the whole entry with its header.
        let bound = (result.data.count + fileSize) / 2
        try #require(result.data.count < bound && bound < fileSize)

        let settings = DiskCacheSettings(folder: scratch.file("cache"), maxBytes: bound)
        let pipeline = cachePipeline(disk: settings)
        _ = try await pipeline.crop(input, to: target)
        let total = cacheEntries(settings.folder).values.reduce(0, +)
        #expect(total <= bound, "the folder holds \(total) bytes, over its bound of \(bound)")
        #expect(pipeline.statistics.diskBytes <= bound)
    }
}

/// What a disk cache does with what it did not write itself, with writes that fail, and with a
/// folder of many entries.
@Suite("Disk cache hazards") struct DiskCacheHazardTests {
    @Test("a foreign 2 GiB file named like an entry is never read: the crop is made and counted as ignored")
    func foreignFilesAreNotRead() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = ImageInput.file(astronaut)
        let target = CropTarget.size(width: 120, height: 120)
        // The entry's name, from a folder of its own (names do not depend on the folder).
        let measure = DiskCacheSettings(folder: scratch.file("measure"))
        _ = try await cachePipeline(disk: measure).crop(input, to: target)
        let name = try #require(cacheEntries(measure.folder).keys.first)
        let folder = scratch.file("cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Sparse: 2 GiB long, no blocks written.
        let handle = try #require(FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: folder + "/" + name, contents: nil); return folder + "/" + name }()))
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        let pipeline = cachePipeline(disk: DiskCacheSettings(folder: folder))
        let result = try await pipeline.crop(input, to: target)
        #expect(result.origin == .fresh, "the foreign file was not taken for the entry")
        #expect(pipeline.statistics.diskIgnored >= 1)
        #expect(pipeline.statistics.diskMisses == 0 || pipeline.statistics.diskHits == 0)
    }

    @Test("a write that fails is counted, and the crop is served all the same")
    func failedWritesAreCounted() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("cache")
        let pipeline = cachePipeline(disk: DiskCacheSettings(folder: folder))
        _ = try await pipeline.crop(.file(astronaut), to: .size(width: 100, height: 100))
        #expect(pipeline.statistics.diskWriteFailures == 0)
        // The folder becomes a file: every later write fails (as on a full or read-only disk).
        try FileManager.default.removeItem(atPath: folder)
        FileManager.default.createFile(atPath: folder, contents: Data("not a folder".utf8))
        let result = try await pipeline.crop(.file(astronaut), to: .size(width: 101, height: 100))
        #expect(result.plan.outputSize == PixelSize(width: 101, height: 100))
        #expect(pipeline.statistics.diskWriteFailures == 1)
    }

    @Test("a folder of 20,000 entries is listed apart: entries written meanwhile join the index, and the bound holds")
    func manyEntriesAreListedApart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = scratch.file("cache")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for i in 0..<20_000 {
            FileManager.default.createFile(atPath: folder + "/" + String(format: "%064x", i) + DiskCache.suffix, contents: Data([UInt8(i & 0xFF)]))
        }
        // Each of them takes a block on disk: the bound holds 256 of them.
        let bound = 256 * 4096
        let pipeline = cachePipeline(disk: DiskCacheSettings(folder: folder, maxBytes: bound))
        let result = try await pipeline.crop(.file(astronaut), to: .size(width: 90, height: 90), options: jpeg(quality: 70))
        #expect(result.origin == .fresh)
        try await pollUntil("the folder is listed", seconds: 60) { pipeline.statistics.diskEntries > 0 }
        let entries = cacheEntries(folder)
        #expect(entries.values.reduce(0, +) <= bound, "\(entries.count) entries, \(entries.values.reduce(0, +)) bytes")
        let written = try #require(result.key).appending(DiskCache.suffix)
        #expect(entries[written] != nil, "the entry written while the folder was listed is kept: it is the newest")
        #expect(try await pipeline.crop(.file(astronaut), to: .size(width: 90, height: 90), options: jpeg(quality: 70)).origin == .memoryCache)
    }
}

// MARK: - LRUCache

@Suite("LRUCache") struct LRUCacheTests {
    @Test("the least recently inserted goes first when the cost exceeds the capacity")
    func evictionOrder() {
        var cache = LRUCache<String, Int>(capacity: 3)
        #expect(cache.insert(1, for: "a", cost: 1).isEmpty)
        #expect(cache.insert(2, for: "b", cost: 1).isEmpty)
        #expect(cache.insert(3, for: "c", cost: 1).isEmpty)
        let dropped = cache.insert(4, for: "d", cost: 1)
        #expect(dropped.map(\.0) == ["a"])
        #expect(dropped.map(\.1) == [1])
        #expect(cache.keysOldestFirst == ["b", "c", "d"])
        #expect(cache.count == 3)
        #expect(cache.totalCost == 3)
        // One large value drops as many as it takes, oldest first.
        let more = cache.insert(5, for: "e", cost: 2)
        #expect(more.map(\.0) == ["b", "c"])
        #expect(cache.keysOldestFirst == ["d", "e"])
        #expect(cache.totalCost == 3)
    }

    @Test("costs add up, and replacing or removing a value gives its cost back")
    func costAccounting() {
        var cache = LRUCache<String, String>(capacity: 100)
        cache.insert("x", for: "a", cost: 10)
        cache.insert("y", for: "b", cost: 25)
        #expect(cache.totalCost == 35)
        cache.insert("z", for: "a", cost: 40)
        #expect(cache.totalCost == 65)
        #expect(cache.count == 2)
        #expect(cache.value(for: "a") == "z")
        #expect(cache.removeValue(for: "b") == "y")
        #expect(cache.totalCost == 40)
        #expect(cache.removeValue(for: "b") == nil)
        #expect(cache.totalCost == 40)
        #expect(cache.count == 1)
        // Exactly full is allowed.
        #expect(cache.insert("w", for: "c", cost: 60).isEmpty)
        #expect(cache.totalCost == 100)
    }

    @Test("reading a value makes it the most recently used; contains does not")
    func touchOnRead() {
        var cache = LRUCache<String, Int>(capacity: 3)
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, for: key, cost: 1) }
        #expect(cache.value(for: "a") == 0)
        #expect(cache.keysOldestFirst == ["b", "c", "a"])
        #expect(cache.contains("b"))
        #expect(cache.keysOldestFirst == ["b", "c", "a"])
        #expect(cache.value(for: "missing") == nil)
        #expect(cache.insert(3, for: "d", cost: 1).map(\.0) == ["b"])
        #expect(cache.value(for: "a") == 0)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.keysOldestFirst == ["c", "d", "a"])
    }

    @Test("a value costing more than the capacity is not stored and drops nothing else")
    func oversize() {
        var cache = LRUCache<String, Int>(capacity: 10)
        cache.insert(1, for: "a", cost: 4)
        #expect(cache.insert(2, for: "big", cost: 11).isEmpty)
        #expect(!cache.contains("big"))
        #expect(cache.value(for: "a") == 1)
        #expect(cache.totalCost == 4)
        var off = LRUCache<String, Int>(capacity: 0)
        off.insert(1, for: "a", cost: 1)
        #expect(off.count == 0)
        #expect(off.totalCost == 0)
    }

    @Test("removing keys from the middle and the ends keeps the order of the rest")
    func removeValue() {
        var cache = LRUCache<Int, Int>(capacity: 100)
        for key in 0..<5 { cache.insert(key * 10, for: key, cost: 1) }
        #expect(cache.removeValue(for: 2) == 20)
        #expect(cache.keysOldestFirst == [0, 1, 3, 4])
        #expect(cache.removeValue(for: 0) == 0)
        #expect(cache.removeValue(for: 4) == 40)
        #expect(cache.keysOldestFirst == [1, 3])
        cache.insert(50, for: 5, cost: 1)
        #expect(cache.keysOldestFirst == [1, 3, 5])
        #expect(cache.removeValue(for: 1) == 10)
        #expect(cache.removeValue(for: 3) == 30)
        #expect(cache.removeValue(for: 5) == 50)
        #expect(cache.keysOldestFirst.isEmpty)
        #expect(cache.count == 0)
        #expect(cache.totalCost == 0)
        cache.insert(1, for: 1, cost: 1)
        #expect(cache.keysOldestFirst == [1])
    }

    @Test("random operations agree with a simple model")
    func model() {
        var random = SplitMix64(seed: 42)
        var cache = LRUCache<Int, Int>(capacity: 20)
        // Oldest first: (key, value, cost).
        var model: [(key: Int, value: Int, cost: Int)] = []
        for step in 0..<5000 {
            let key = Int(random.next() % 12)
            switch random.next() % 4 {
            case 0:
                let got = cache.value(for: key)
                let index = model.firstIndex { $0.key == key }
                #expect(got == index.map { model[$0].value }, "step \(step)")
                if let index { model.append(model.remove(at: index)) }
            case 1:
                let got = cache.removeValue(for: key)
                let index = model.firstIndex { $0.key == key }
                #expect(got == index.map { model[$0].value }, "step \(step)")
                if let index { model.remove(at: index) }
            default:
                let cost = Int(random.next() % 25)
                let dropped = cache.insert(step, for: key, cost: cost)
                model.removeAll { $0.key == key }
                var expected: [Int] = []
                if cost <= 20 {
                    model.append((key, step, cost))
                    while model.reduce(0, { $0 + $1.cost }) > 20 { expected.append(model.removeFirst().key) }
                }
                #expect(dropped.map(\.0) == expected, "step \(step)")
            }
            #expect(cache.keysOldestFirst == model.map(\.key), "step \(step)")
            #expect(cache.totalCost == model.reduce(0) { $0 + $1.cost }, "step \(step)")
            #expect(cache.totalCost <= cache.capacity)
        }
    }
}

