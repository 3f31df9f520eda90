import Focal
import FocalTestSupport
import Foundation
import Testing

/// One plan renders one set of bytes: whether detection ran for this request or its subjects
/// came from the detection cache, and in a new process (a new pipeline), the bytes are the same,
/// so that one ETag (the result key) never stands for two outputs across replicas or restarts.
@Suite struct RenderDeterminismTests {
    static let cases: [(Fixture, CropTarget, String)] = [
        (.astronaut, .size(width: 300, height: 200), "fill"),
        (.coffee, .size(width: 300, height: 200), "fill"),
        (.graceHopper, .size(width: 160, height: 160), "0.6"),
        (.chelsea, .aspect(width: 4, height: 5), "fill"),
    ]

    @Test(arguments: cases.indices)
    func theSamePlanRendersTheSameBytes(index: Int) async throws {
        let (fixture, target, zoom) = Self.cases[index]
        var options = FocalOptions()
        try #require(CropOption.named("zoom")).apply(zoom, to: &options)
        let input = ImageInput.file(fixture.path)
        // No result cache: each crop renders; the second finds its subjects in the detection cache.
        let pipeline = makePipeline { $0.memoryCacheBytes = 0 }
        let first = try await pipeline.crop(input, to: target, options: options)
        let second = try await pipeline.crop(input, to: target, options: options)
        #expect(pipeline.statistics.detectionCacheHits >= 1, "the second crop's subjects came from the cache")
        #expect(first.plan == second.plan)
        #expect(first.data == second.data, "\(fixture) \(target) zoom \(zoom): a detected and a cached plan render alike")
        let restarted = try await makePipeline { $0.memoryCacheBytes = 0 }.crop(input, to: target, options: options)
        #expect(restarted.data == first.data, "a new process renders the same bytes")
        #expect(restarted.key == first.key)
    }
}
