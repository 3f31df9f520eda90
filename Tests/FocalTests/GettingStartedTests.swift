import Focal
import FocalTestSupport
import Foundation
import Testing

/// The DocC article `Sources/Focal/Focal.docc/GettingStarted.md`, step by step, on the real photos
/// of `Fixtures/`: each test is one of its listings with the article's own calls (the paths and the
/// tests' longer deadline aside), so that an example that stops compiling or stops doing what the
/// article says fails here.
@Suite struct GettingStartedTests {
    /// "Crop a file to an aspect", then "Read the plan": Grace Hopper's portrait at 16:9 keeps her
    /// face, the largest 16:9 crop of the photo, not resized.
    @Test func cropAFileToAnAspectAndReadThePlan() async throws {
        var configuration = FocalConfiguration()
        configuration.modelsPath = Checkout.models
        configuration.limits.timeout = .seconds(300)  // the whole suite shares the cores (`makePipeline`)
        let pipeline = FocalPipeline(configuration: configuration)

        let result = try await pipeline.crop(.file(Fixture.graceHopper.path), to: .aspect(width: 16, height: 9))
        let scratch = try Scratch()
        defer { scratch.remove() }
        let output = URL(fileURLWithPath: scratch.path("grace_hopper-16x9.\(result.format.fileExtension)"))
        try result.data.write(to: output)
        #expect(result.format == .jpeg, "a JPEG input comes out as JPEG")
        #expect(try Data(contentsOf: output) == result.data)

        let plan = result.plan
        #expect(plan.strategy == .faces)
        #expect(plan.imageSize == PixelSize(width: 512, height: 600))
        #expect(plan.crop.size == PixelSize(width: 512, height: 288) && plan.outputSize == plan.crop.size, "the largest 16:9 crop: \(plan.crop)")
        let face = try #require(plan.subjects.first { $0.kind == .face })
        #expect(plan.crop.box.intersection(face.box)?.area == face.box.area, "the face is whole in \(plan.crop)")
        #expect(result.detected.count >= plan.subjects.count)
        #expect(result.origin == .fresh)

        // The same request again is answered from memory.
        let again = try await pipeline.crop(.file(Fixture.graceHopper.path), to: .aspect(width: 16, height: 9))
        #expect(again.origin == .memoryCache && again.data == result.data)
    }

    /// "Crop to an exact size": a 400×400 WebP at quality 80.
    @Test func cropToAnExactSize() async throws {
        let pipeline = makePipeline()
        let options = FocalOptions(format: .webp, quality: 80)
        let avatar = try await pipeline.crop(.file(Fixture.astronaut.path), to: .size(width: 400, height: 400), options: options)
        #expect(avatar.format == .webp && avatar.plan.outputSize == PixelSize(width: 400, height: 400))
        #expect(String(decoding: avatar.data.prefix(12).suffix(4), as: UTF8.self) == "WEBP")
    }

    /// "Plan without rendering": one analysis, many plans; `CropPlanner` with subjects you know.
    @Test func planWithoutRendering() async throws {
        let pipeline = makePipeline()
        let analysis = try await pipeline.analyze(.file(Fixture.graceHopper.path))
        let square = try analysis.plan(.aspect(width: 1, height: 1))
        let banner = try analysis.plan(.size(width: 1200, height: 300), options: CropOptions(padding: .fraction(0.3)))
        #expect(square.strategy == .faces && banner.strategy == .faces)
        #expect(square.crop.width == square.crop.height && banner.outputSize == PixelSize(width: 1200, height: 300))

        let known = Subject(kind: .face, box: Box(x: 820, y: 140, width: 160, height: 200))
        let plan = try CropPlanner.plan(imageSize: PixelSize(width: 1600, height: 1200), target: .aspect(width: 4, height: 5), subjects: [known])
        #expect(plan.strategy == .faces && plan.crop.box.intersection(known.box)?.area == known.box.area)
    }

    /// "Choose the subjects": kinds, the scheme, padding, zoom, confidence, a focus point.
    @Test func chooseTheSubjects() async throws {
        let pipeline = makePipeline()
        let cat = ImageInput.file(Fixture.chelsea.path)
        let square = CropTarget.aspect(width: 1, height: 1)

        var options = FocalOptions()
        options.crop.kinds = try SubjectPreference(text: "pet+face")  // cats and dogs before faces
        options.crop.scheme = .largest  // only the largest of them
        options.crop.padding = .fraction(0.2)  // 20 % of its size around it
        options.crop.zoom = .subject(0.6)  // it fills 60 % of the crop
        options.crop.minimumConfidence = [.face: 0.8]
        let pet = try await pipeline.crop(cat, to: square, options: options)
        #expect(pet.plan.strategy == .pets && pet.plan.subjects.map(\.kind) == [.cat])

        options.crop.kinds = try SubjectPreference(text: "face")  // faces only: none here
        #expect(try await pipeline.crop(cat, to: square, options: options).plan.strategy == .center)

        var manual = FocalOptions()
        manual.crop.override = .relativeFocus(x: 0, y: 0.5)  // the left edge, halfway down
        let left = try await pipeline.crop(cat, to: square, options: manual)
        #expect(left.plan.strategy == .manual && left.plan.crop.x == 0)
    }

    /// "Handle errors": every Focal error is a `FocalError` with a stable code.
    @Test func handleErrors() async throws {
        let pipeline = makePipeline()
        func code(_ body: () async throws -> Void) async -> ErrorCode? {
            do {
                try await body()
                return nil
            } catch let error as any FocalError {
                #expect(!error.publicMessage.contains("/"), "no path in \(error.publicMessage)")
                return error.code
            } catch {
                return nil
            }
        }
        #expect(await code { _ = try await pipeline.crop(.file("no-such-photo.jpg"), to: .aspect(width: 1, height: 1)) } == .inputNotFound)
        #expect(await code { _ = try await pipeline.crop(.file(Fixture.astronaut.path), to: .size(width: 0, height: 400)) } == .requestInvalid)
        #expect(await code { _ = try CropTarget(parsing: "16:0") } == .requestInvalid)
        #expect(await code { _ = try await pipeline.crop(.data(Data("not a photo".utf8)), to: .aspect(width: 1, height: 1)) } == .inputNotAnImage)
        do {
            _ = try await pipeline.crop(.file("no-such-photo.jpg"), to: .aspect(width: 1, height: 1))
            Issue.record("a missing file was cropped")
        } catch let error as ImagingError {
            #expect(error.code == .inputNotFound && error.description.contains("no-such-photo.jpg"))
        }

        // A placeholder stands in for an image that failed; invalid options are still thrown.
        var options = FocalOptions()
        options.fallback = .placeholder(try Fixture.coffee.data)
        let stand = try await pipeline.crop(.file("no-such-photo.jpg"), to: .size(width: 200, height: 100), options: options)
        guard case .placeholder = stand.origin else {
            Issue.record("origin \(stand.origin)")
            return
        }
        #expect(stand.plan.outputSize == PixelSize(width: 200, height: 100))
    }
}
