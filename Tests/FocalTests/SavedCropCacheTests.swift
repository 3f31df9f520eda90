@testable import Focal
import Foundation
import FocalTestSupport
import Synchronization
import Testing

/// A crop a person saved, through the library's own `CropOverriding`: the result is looked up
/// once per crop, under a key the saved crop decides before the image is opened, so a repeat is
/// answered from the cache without a decode.
@Suite struct SavedCropCacheTests {
    /// Saved crops kept in memory, one per content ID, for every aspect; counts the questions.
    final class SavedCrops: CropOverriding {
        let crops: [String: CropOverride]
        let asked = Mutex(0)

        init(_ crops: [String: CropOverride]) { self.crops = crops }

        func override(image id: String, ratio: Double) async throws -> CropOverride? {
            asked.withLock { $0 += 1 }
            return crops[id].flatMap { SavedCropRule.matches(saved: Double($0.crop.width) / Double($0.crop.height), frame: ratio) ? $0 : nil }
        }
    }

    @Test("a saved crop is rendered, and a repeat is one memory hit with no miss, no decode and no render")
    func repeatIsOneHit() async throws {
        let path = Checkout.fixture("astronaut.png")
        let id = ContentDigest.of(try Data(contentsOf: URL(fileURLWithPath: path)))
        let saved = CropOverride(crop: PixelRect(x: 100, y: 40, width: 200, height: 200), revision: 3)
        var configuration = FocalConfiguration(modelsPath: Checkout.models)
        configuration.limits.timeout = .seconds(300)
        let pipeline = FocalPipeline(configuration: configuration, overrides: SavedCrops([id: saved]))
        let target = CropTarget.size(width: 100, height: 100)

        let first = try await pipeline.crop(.file(path), to: target)
        #expect(first.plan.crop == saved.crop)
        #expect(first.plan.strategy == .manual)
        let afterFirst = pipeline.statistics
        #expect(afterFirst.memoryMisses == 1, "the first crop is looked up once, not again once the image is open")
        #expect(afterFirst.renders == 1)

        let second = try await pipeline.crop(.file(path), to: target)
        #expect(second.data == first.data)
        let afterSecond = pipeline.statistics
        #expect(afterSecond.memoryHits == afterFirst.memoryHits + 1)
        #expect(afterSecond.memoryMisses == afterFirst.memoryMisses)
        #expect(afterSecond.proxyDecodes == afterFirst.proxyDecodes)
        #expect(afterSecond.renders == afterFirst.renders)
    }

    @Test("another revision of the saved crop is another key: no cache serves the older crop")
    func newRevisionIsNewKey() async throws {
        let path = Checkout.fixture("astronaut.png")
        let id = ContentDigest.of(try Data(contentsOf: URL(fileURLWithPath: path)))
        var configuration = FocalConfiguration(modelsPath: Checkout.models)
        configuration.limits.timeout = .seconds(300)
        configuration.diskCache = nil
        let target = CropTarget.size(width: 100, height: 100)
        let older = FocalPipeline(
            configuration: configuration, overrides: SavedCrops([id: CropOverride(crop: PixelRect(x: 100, y: 40, width: 200, height: 200), revision: 3)]))
        let newer = FocalPipeline(
            configuration: configuration, overrides: SavedCrops([id: CropOverride(crop: PixelRect(x: 0, y: 0, width: 200, height: 200), revision: 4)]))
        let a = try await older.crop(.file(path), to: target)
        let b = try await newer.crop(.file(path), to: target)
        #expect(a.plan.crop != b.plan.crop)
        #expect(a.key != nil && b.key != nil && a.key != b.key)
    }
}
