import Focal
import FocalTestSupport
import Foundation
import Testing

/// A redaction whose faces cannot be looked for (here, no models) is an error at the library and
/// CLI doors, never an image: no fallback stands in for it.
@Suite struct RedactionFailsClosedTests {
    static let photo = ImageInput.file(Checkout.fixture("grace_hopper.jpg"))
    static let target = CropTarget.size(width: 200, height: 200)

    @Test("with a centre-crop fallback, a redaction that cannot detect throws, where the plain crop falls back")
    func centerCropFallback() async throws {
        let empty = try Scratch()
        defer { empty.remove() }
        let pipeline = FocalPipeline(configuration: FocalConfiguration(modelsPath: empty.path))
        var options = FocalOptions(fallback: .centerCrop)
        // Without a redaction the fallback answers (so this test reaches the path it guards).
        let plain = try await pipeline.crop(Self.photo, to: Self.target, options: options)
        guard case .centerCropFallback = plain.origin else {
            Issue.record("origin is \(plain.origin), not a centre-crop fallback")
            return
        }
        options.redaction = Redaction(style: .blur)
        await #expect(throws: DetectionError.self) { try await pipeline.crop(Self.photo, to: Self.target, options: options) }
        // Also for a crop that detects nothing itself: the redaction still has to.
        options.crop.detect = false
        await #expect(throws: DetectionError.self) { try await pipeline.crop(Self.photo, to: Self.target, options: options) }
    }

    @Test("with a placeholder, a redaction that cannot detect throws, where the plain crop gets the placeholder")
    func placeholderFallback() async throws {
        let empty = try Scratch()
        defer { empty.remove() }
        let pipeline = FocalPipeline(configuration: FocalConfiguration(modelsPath: empty.path))
        let placeholder = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("coffee.png")))
        var options = FocalOptions(fallback: .placeholder(placeholder))
        let plain = try await pipeline.crop(Self.photo, to: Self.target, options: options)
        guard case .placeholder = plain.origin else {
            Issue.record("origin is \(plain.origin), not the placeholder")
            return
        }
        options.redaction = Redaction(style: .pixelate)
        await #expect(throws: DetectionError.self) { try await pipeline.crop(Self.photo, to: Self.target, options: options) }
    }

    @Test("focal crop --redact without models exits 1 with a JSON line and its code, and writes nothing")
    func cli() async throws {
        let scratch = try Scratch(), empty = try Scratch()
        defer {
            scratch.remove()
            empty.remove()
        }
        for extra in [[String](), ["--detect", "off"]] {
            let run = try await Run(
                ["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--redact", "blur", "--models", empty.path, "--json", "-o", scratch.path]
                    + extra)
            #expect(run.status == 1, "\(extra): \(run.stderr)")
            let object = try #require(run.objects.first)
            #expect(object["code"] as? String == "models.missing", "\(extra): \(object)")
            #expect(object["output"] == nil)
            #expect(scratch.contents.isEmpty, "\(extra): \(scratch.contents)")
        }
    }
}
