import Focal
import FocalTestSupport
import Foundation
import Testing

/// The object detector's classes on real photos: `Fixtures/motorcycle_left.png` (a motorbike, and
/// a false face YuNet finds on its engine) and `Fixtures/coffee.png` (a cup on a table).
@Suite struct ObjectKindPipelineTests {
    /// The detector's class names are the model's own (`models/coco.names`, spaces as `_`).
    @Test func theNamesAreTheModels() throws {
        let names = try String(contentsOfFile: Checkout.models + "/coco.names", encoding: .utf8)
            .split(separator: "\n").map { String($0.map { $0 == " " ? "_" : $0 }) }
        #expect(names == COCOClasses.names)
    }

    @Test func aNamedClassFramesItsObjectsTheDefaultDoesNot() async throws {
        let pipeline = makePipeline()
        let photo = ImageInput.file(Checkout.fixture("motorcycle_left.png"))
        let square = CropTarget.aspect(width: 1, height: 1)
        let plain = try await pipeline.crop(photo, to: square)
        #expect(plain.plan.strategy == .faces, "the default crop counts faces, pets, people and saliency only")
        #expect(!plain.detected.contains { $0.kind.rawValue == "motorbike" }, "a default crop does not list other classes")
        var options = FocalOptions()
        options.crop.kinds = try SubjectPreference(text: "motorcycle")
        let named = try await pipeline.crop(photo, to: square, options: options)
        #expect(named.plan.strategy == .objects)
        let bike = try #require(named.plan.subjects.first { $0.kind.rawValue == "motorbike" })
        // The crop (500 of the photo's 741 px) frames as much of the 588 px motorbike as it holds.
        let shown = (bike.box.intersection(named.plan.crop.box)?.area ?? 0) / bike.box.area
        let plainShown = (bike.box.intersection(plain.plan.crop.box)?.area ?? 0) / bike.box.area
        #expect(shown >= 500.0 / 588 - 0.02 && shown > plainShown, "\(shown) against \(plainShown)")
        // Another photo, another class; a class that is not there gives a centre crop.
        options.crop.kinds = try SubjectPreference(text: "cup")
        let cup = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 9, height: 16), options: options)
        let found = try #require(cup.plan.subjects.first)
        #expect(found.kind.rawValue == "cup" && cup.plan.crop.box.contains(Box(x: found.box.midX, y: found.box.midY, width: 0, height: 0)))
        options.crop.kinds = try SubjectPreference(text: "truck")
        #expect(try await pipeline.crop(photo, to: square, options: options).plan.strategy == .center)
    }

    /// `redact(blur,motorbike)` hides the motorbike, and nothing of it when it is not named.
    @Test func redactionTakesAClass() async throws {
        let pipeline = makePipeline()
        let photo = ImageInput.file(Checkout.fixture("motorcycle_left.png"))
        var options = FocalOptions(format: .png)
        let plain = try await pipeline.crop(photo, to: .size(width: 370, height: 250), options: options)
        options.redaction = try Redaction(text: "pixelate,20,motorbike")
        let hidden = try await pipeline.crop(photo, to: .size(width: 370, height: 250), options: options)
        let (a, b) = (try OutputDecoding.open(plain.data).0, try OutputDecoding.open(hidden.data).0)
        let (pa, pb) = (try a.pixels(width: 370, height: 250), try b.pixels(width: 370, height: 250))
        // The motorbike covers most of the frame: most pixels change.
        let changed = stride(from: 0, to: pa.bytes.count, by: 3).filter { pa.bytes[$0] != pb.bytes[$0] }.count
        #expect(Double(changed) / Double(370 * 250) > 0.5, "\(changed)")
        #expect(throws: PlanningError.self) { try Redaction(text: "blur,spaceship") }
    }
}

/// `focal crop --kinds CLASS`, `--placement`, `--tight` and `--preset` (FOCAL_PRESETS, as `focal serve` reads it).
@Suite struct SubjectFramingCLITests {
    @Test func theCommandLineTakesClassesPlacementTightAndPresets() async throws {
        let folder = try Scratch()
        defer { folder.remove() }
        let bike = try await Run(["crop", Checkout.fixture("motorcycle_left.png"), "--aspect", "1:1", "--kinds", "motorbike", "--placement", "thirds", "--json"])
        #expect(bike.status == 0, "\(bike.stderr)")
        #expect(bike.objects.first?["strategy"] as? String == "objects")
        let tight = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "300x300", "--tight", "width", "-o", folder.file("t.jpg"), "--json"])
        #expect(tight.status == 0, "\(tight.stderr)")
        let (decoded, _) = try OutputDecoding.open(try Data(contentsOf: URL(fileURLWithPath: folder.file("t.jpg"))))
        #expect(decoded.size.width == 300 && decoded.size.height > 300, "the face's box is taller than wide: \(decoded.size)")
        let environment = ProcessInfo.processInfo.environment.merging(["FOCAL_PRESETS": "grey=filters:grayscale():kinds(person)"]) { $1 }
        let preset = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--preset", "grey", "--json"], environment: environment)
        #expect(preset.status == 0, "\(preset.stderr)")
        #expect(preset.objects.first?["strategy"] as? String == "people")
        let unknown = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--preset", "nope", "--json"], environment: environment)
        #expect(unknown.status != 0 && unknown.stdout.contains("no preset is named"))
    }
}
