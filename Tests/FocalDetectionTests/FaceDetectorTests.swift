import Focal
import Foundation
import FocalTestSupport
import Testing

@Suite struct FaceDetectorTests {
    let detector: FaceDetector

    init() throws { detector = try FaceDetector(models: models) }

    @Test("one face on each portrait, inside the image and on the head")
    func portraits() async throws {
        // Where the faces are, judged by eye on the photos: astronaut's head is in the upper
        // middle, Grace Hopper's face in the upper half.
        for (name, centre) in [("astronaut.png", (223.0, 120.0)), ("grace_hopper.jpg", (265.0, 230.0))] {
            let req = try request(for: name)
            let faces = try await detector.detect(req)
            #expect(faces.count == 1, "\(name): \(faces)")
            guard let face = faces.first else { continue }
            #expect(face.kind == .face)
            #expect(face.confidence >= 0.75)
            let image = Box(x: 0, y: 0, width: Double(req.imageSize.width), height: Double(req.imageSize.height))
            #expect(image.contains(face.box))
            #expect(abs(face.box.midX - centre.0) < 40 && abs(face.box.midY - centre.1) < 40, "\(name): \(face.box)")
        }
    }

    @Test("no face on a cup of coffee or a cat")
    func negatives() async throws {
        for name in ["coffee.png", "chelsea.png"] {
            #expect(try await detector.detect(request(for: name)).isEmpty, "\(name)")
        }
    }

    @Test("accurate finds the small faces of a large group that fast misses")
    func smallFacesInALargeImage() async throws {
        // A 2400x1600 "group": twelve real portraits 150 px wide, faces about 30 px wide.
        let portrait = try SourceImage.open(path: Checkout.fixture("astronaut.png")).proxy(longSide: 150)
        var bytes = [UInt8](repeating: 90, count: 2400 * 1600 * 3)
        for tile in 0..<12 {
            let ox = 150 + (tile % 6) * 360, oy = 400 + (tile / 6) * 500
            for y in 0..<portrait.height {
                for x in 0..<portrait.width {
                    for c in 0..<3 { bytes[((oy + y) * 2400 + ox + x) * 3 + c] = portrait.bytes[(y * portrait.width + x) * 3 + c] }
                }
            }
        }
        let group = try #require(PixelBuffer(width: 2400, height: 1600, bytes: bytes))
        let image = try SourceImage.open(data: RenderedImage(pixels: group).encode(.png), name: "group")
        let req = DetectionRequest(name: "group", imageSize: image.size) { try image.proxy(longSide: $0, enlarge: $1) }
        let fast = try await detector.detect(req)
        let accurate = try await FaceDetector(models: models, accuracy: .accurate).detect(req)
        #expect(accurate.count >= 10, "accurate found \(accurate.count)")
        #expect(fast.count < accurate.count, "fast \(fast.count), accurate \(accurate.count)")
    }

    @Test("a missing model names the file and the command that fetches it")
    func missingModel() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("focal-no-models-\(UUID())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let error = #expect(throws: DetectionError.self) { try FaceDetector(models: ModelDirectory(path: empty)) }
        #expect(error?.code == .modelsMissing)
        #expect(error?.message.contains(FaceDetector.modelFile) == true)
        #expect(error?.message.contains("make models") == true)
    }

    @Test("a file that is not a model is refused with OpenVINO's reason")
    func invalidModel() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-bad-models-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for file in FaceDetector.modelFiles {
            try Data("not onnx".utf8).write(to: URL(fileURLWithPath: folder + "/" + file))
        }
        let detector = try FaceDetector(models: ModelDirectory(path: folder))
        let error = await #expect(throws: DetectionError.self) { try await detector.detect(request(for: "astronaut.png")) }
        #expect(error?.code == .modelsInvalid)
        #expect(error?.message.contains("yunet-2023mar-512x512.onnx") == true)
    }

    @Test("each input size has its file: a missing one is named", arguments: FaceDetector.modelFiles.prefix(3))
    func missingSize(file: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-some-models-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for other in FaceDetector.modelFiles where other != file {
            try FileManager.default.copyItem(atPath: models.file(other), toPath: folder + "/" + other)
        }
        let error = #expect(throws: DetectionError.self) { try FaceDetector(models: ModelDirectory(path: folder)) }
        #expect(error?.code == .modelsMissing)
        #expect(error?.message.contains(file) == true)
    }

    @Test("the input size holds the proxy: landscape, square and portrait, at both accuracies")
    func inputSizes() {
        #expect(FaceDetector.inputSize(for: PixelSize(width: 512, height: 288), .fast) == PixelSize(width: 512, height: 384))
        #expect(FaceDetector.inputSize(for: PixelSize(width: 512, height: 384), .fast) == PixelSize(width: 512, height: 384))
        #expect(FaceDetector.inputSize(for: PixelSize(width: 512, height: 385), .fast) == PixelSize(width: 512, height: 512))
        #expect(FaceDetector.inputSize(for: PixelSize(width: 341, height: 512), .fast) == PixelSize(width: 384, height: 512))
        #expect(FaceDetector.inputSize(for: PixelSize(width: 1280, height: 720), .accurate) == PixelSize(width: 1280, height: 960))
        #expect(FaceDetector.inputSize(for: PixelSize(width: 513, height: 100), .fast) == nil)
    }
}
