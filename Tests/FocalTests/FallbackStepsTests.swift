import Focal
import FocalImaging
import FocalTestSupport
import Foundation
import Testing

/// Fallbacks run through the crop's own steps: a centre crop whose detection failed, and the
/// caller's placeholder, get every change the request asks for (effects, fill), where they used to
/// be rendered bare; neither is cached.
@Suite struct FallbackStepsTests {
    static let photo = ImageInput.file(Checkout.fixture("grace_hopper.jpg"))
    static let target = CropTarget.size(width: 200, height: 160)

    /// Options with two effects and a fill, which a bare render would leave out.
    static func changed(_ fallback: Fallback) throws -> FocalOptions {
        var options = FocalOptions(fallback: fallback)
        options.effects.set(try Grayscale(arguments: ""))
        options.effects.set(try Blur(arguments: "2"))
        var fill = try Fill(text: "ff0000")
        fill.box = (240, 160)
        options.fill = fill
        return options
    }

    @Test("a centre-crop fallback (no models) is the detect-off crop with the same effects and fill, byte for byte, and is not cached")
    func centerCropFallbackKeepsChanges() async throws {
        let empty = try Scratch()
        defer { empty.remove() }
        let broken = FocalPipeline(configuration: FocalConfiguration(modelsPath: empty.path))
        let options = try Self.changed(.centerCrop)
        let fallback = try await broken.crop(Self.photo, to: Self.target, options: options)
        guard case .centerCropFallback = fallback.origin else {
            Issue.record("origin is \(fallback.origin), not a centre-crop fallback")
            return
        }
        #expect(fallback.detected.isEmpty)
        #expect(fallback.key == nil)

        var plain = options
        plain.crop.detect = false
        plain.fallback = .error
        let expected = try await makePipeline().crop(Self.photo, to: Self.target, options: plain)
        #expect(fallback.plan == expected.plan)
        #expect(fallback.data == expected.data, "the fallback got the effects and the fill")
        let decoded = try SourceImage.open(data: fallback.data, name: "fallback")
        #expect(decoded.size == PixelSize(width: 240, height: 160), "fill's box")

        // Not cached: the same request falls back again (and counts again).
        let again = try await broken.crop(Self.photo, to: Self.target, options: options)
        guard case .centerCropFallback = again.origin else {
            Issue.record("the second answer's origin is \(again.origin)")
            return
        }
        #expect(broken.statistics.fallbacks == 2)
        #expect(broken.statistics.memoryEntries == 0)
    }

    @Test("a placeholder gets the request's effects and fill, and is not cached")
    func placeholderKeepsChanges() async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("coffee.png")))
        let pipeline = makePipeline()
        let options = try Self.changed(.placeholder(bytes))
        let missing = ImageInput.file(Checkout.fixture("no-such-photo.jpg"))
        let result = try await pipeline.crop(missing, to: Self.target, options: options)
        guard case .placeholder = result.origin else {
            Issue.record("origin is \(result.origin), not the placeholder")
            return
        }
        var plain = options
        plain.crop = CropOptions(detect: false)
        plain.fallback = .error
        let expected = try await pipeline.crop(.data(bytes, name: "placeholder"), to: Self.target, options: plain)
        #expect(result.data == expected.data, "the placeholder got the effects and the fill")
        #expect(result.key == nil)
        #expect(pipeline.statistics.fallbacks == 1)
    }
}
