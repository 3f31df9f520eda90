import Focal
import Foundation
import Synchronization
import FocalTestSupport
import Testing

/// A detector of one's own with a kind of its own: it reports the right-hand quarter of every
/// image as a "logo", and counts how often it is asked.
final class RightLogoDetector: SubjectDetecting {
    static let logo = SubjectKind(rawValue: "logo")
    let calls = Mutex(0)
    var identifier: String { "right-logo" }
    func detect(_ request: DetectionRequest) async throws -> [Subject] {
        calls.withLock { $0 += 1 }
        let pixels = try await request.pixels(longSide: 64)
        let width = Double(pixels.width)
        let box = Box(x: width * 3 / 4, y: 0, width: width / 4, height: Double(pixels.height) / 2)
        return [Subject(kind: Self.logo, box: request.toImage(box, from: pixels), confidence: 0.8)]
    }
}

@Suite(.serialized) struct DetectionStageTests {
    init() {
        SubjectKindTraits.register(
            SubjectKindTraits(kind: RightLogoDetector.logo, priority: 2, strategy: CropStrategy(rawValue: "logo"), label: "Logo", colour: "#0ea5e9"))
    }

    @Test("a stage of one's own with its own kind ranks by its registered row: before saliency, after faces")
    func ownKind() async throws {
        let detector = RightLogoDetector()
        let pipeline = makePipeline(stages: [.custom(detector, kinds: [RightLogoDetector.logo])])
        // No face in the coffee photo: the logo (priority 2) outranks the salient region (3).
        let coffee = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 1, height: 1))
        #expect(coffee.plan.strategy.rawValue == "logo")
        #expect(coffee.plan.crop.x + coffee.plan.crop.width == 600, "the crop holds the right-hand logo")
        // A face (priority 0) outranks it.
        let grace = try await pipeline.crop(.file(Checkout.fixture("grace_hopper.jpg")), to: .aspect(width: 1, height: 1))
        #expect(grace.plan.strategy == .faces)
        #expect(grace.detected.contains { $0.kind == RightLogoDetector.logo })
        #expect(pipeline.stages.map(\.id) == ["faces", "custom:right-logo", "objects", "saliency"])
    }

    @Test("a stage's own rule decides when it runs, given what the stages before it found")
    func ownRule() async throws {
        let detector = RightLogoDetector()
        let onlyWithoutFaces = DetectionStage.custom(detector, kinds: [RightLogoDetector.logo]) { context in
            context.found.contains { $0.kind == .face } ? .skipped : .cropped
        }
        let pipeline = makePipeline(stages: [onlyWithoutFaces])
        _ = try await pipeline.crop(.file(Checkout.fixture("grace_hopper.jpg")), to: .aspect(width: 1, height: 1))
        #expect(detector.calls.withLock { $0 } == 0, "a face was found: the stage is skipped")
        _ = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 1, height: 1))
        #expect(detector.calls.withLock { $0 } == 1)
    }

    @Test("a registered kind is written by its name in JSON and read back")
    func json() throws {
        let subject = Subject(kind: RightLogoDetector.logo, box: Box(x: 1, y: 2, width: 3, height: 4), confidence: 0.5)
        let data = try JSONEncoder().encode(subject)
        #expect(String(decoding: data, as: UTF8.self).contains("\"kind\":\"logo\""))
        #expect(try JSONDecoder().decode(Subject.self, from: data).kind == RightLogoDetector.logo)
        #expect(SubjectKind.allCases.contains(RightLogoDetector.logo))
        #expect(RightLogoDetector.logo.traits.colour == "#0ea5e9")
    }
}
