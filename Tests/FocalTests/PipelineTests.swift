@testable import Focal
import Foundation
import Synchronization
import FocalTestSupport
import Testing

/// A detector of one's own, as a user would write it: it reports the top-left quarter of every
/// image as a dog, and counts how often it is asked.
final class QuarterDogDetector: SubjectDetecting {
    let calls = Mutex(0)
    var identifier: String { "quarter-dog" }
    func detect(_ request: DetectionRequest) async throws -> [Subject] {
        calls.withLock { $0 += 1 }
        let pixels = try await request.pixels(longSide: 64)
        let box = Box(x: 0, y: 0, width: Double(pixels.width) / 2, height: Double(pixels.height) / 2)
        return [Subject(kind: .dog, box: request.toImage(box, from: pixels), confidence: 0.9)]
    }
}

@Suite struct PipelineTests {
    @Test("a 400x400 avatar of the astronaut keeps her face, at exactly 400x400")
    func avatar() async throws {
        let pipeline = makePipeline()
        let result = try await pipeline.crop(.file(Checkout.fixture("astronaut.png")), to: .size(width: 400, height: 400))
        #expect(result.plan.strategy == .faces)
        let face = try #require(result.detected.first { $0.kind == .face })
        #expect(result.plan.crop.box.contains(face.box))
        let decoded = try SourceImage.open(data: result.data)
        #expect(decoded.size == PixelSize(width: 400, height: 400))
        #expect(decoded.format == "png", "the default output format is the input's own")
    }

    @Test("the strategy follows what is in the photo", arguments: [
        ("grace_hopper.jpg", CropStrategy.faces), ("chelsea.png", .pets), ("coffee.png", .saliency),
    ])
    func strategies(name: String, expected: CropStrategy) async throws {
        let result = try await makePipeline().crop(.file(Checkout.fixture(name)), to: .aspect(width: 9, height: 16))
        #expect(result.plan.strategy == expected)
    }

    @Test("detection off gives a centre crop and runs no detector")
    func centre() async throws {
        let pipeline = makePipeline()
        var options = FocalOptions()
        options.crop.detect = false
        let result = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 1, height: 1), options: options)
        #expect(result.plan.strategy == .center)
        #expect(result.plan.crop == PixelRect(x: 100, y: 0, width: 400, height: 400))
        #expect(pipeline.statistics.detections == 0)
    }

    @Test("five aspects of one photo run the detectors once")
    func detectOnce() async throws {
        let counter = QuarterDogDetector()
        let pipeline = makePipeline(detectors: [counter])
        let data = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("grace_hopper.jpg")))
        for (w, h) in [(1, 1), (16, 9), (9, 16), (4, 5), (3, 2)] {
            _ = try await pipeline.crop(.data(data, name: "grace"), to: .aspect(width: w, height: h))
        }
        #expect(counter.calls.withLock { $0 } == 1)
        #expect(pipeline.statistics.detections == 1)
        #expect(pipeline.statistics.detectionCacheHits == 4)
        // The same bytes under another name are the same content.
        _ = try await pipeline.crop(.data(data, name: "other name"), to: .aspect(width: 2, height: 1))
        #expect(counter.calls.withLock { $0 } == 1)
    }

    @Test("detectors share one decode of the image")
    func oneDecode() async throws {
        let pipeline = makePipeline(detectors: [QuarterDogDetector()])
        _ = try await pipeline.analyze(.file(Checkout.fixture("astronaut.png")))
        #expect(pipeline.statistics.proxyDecodes == 1)
    }

    @Test("a custom detector's subjects are planned like built-in ones")
    func customDetector() async throws {
        let pipeline = makePipeline(detectors: [QuarterDogDetector()])
        let result = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 1, height: 1))
        #expect(result.plan.strategy == .pets)
        #expect(result.plan.crop.x == 0)
    }

    @Test("a manual focus skips detection")
    func focus() async throws {
        let pipeline = makePipeline()
        var options = FocalOptions()
        options.crop.override = .focus(x: 600, y: 0)
        let result = try await pipeline.crop(.file(Checkout.fixture("coffee.png")), to: .aspect(width: 1, height: 1), options: options)
        #expect(result.plan.strategy == .manual)
        #expect(result.plan.crop == PixelRect(x: 200, y: 0, width: 400, height: 400))
        #expect(pipeline.statistics.detections == 0)
    }

    @Test("a truncated JPEG is a decode error naming the input, not a grey picture")
    func truncated() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("grace_hopper.jpg")))
        let cut = data.prefix(data.count * 6 / 10)
        await #expect {
            _ = try await makePipeline().crop(.data(Data(cut), name: "cut.jpg"), to: .size(width: 100, height: 100))
        } throws: { error in
            guard let error = error as? ImagingError else { return false }
            return error.code == .inputCorrupt && error.description.contains("cut.jpg")
        }
    }

    @Test("a TIFF source comes out as PNG when no format is named, as thumbor's tests expect")
    func tiffSourcesComeOutAsPNG() async throws {
        let tiff = try SourceImage.open(path: Checkout.fixture("chelsea.png")).decode(width: 120, height: 90).encode(.tiff)
        let result = try await makePipeline().crop(.data(tiff, name: "chelsea.tif"), to: .size(width: 60, height: 45))
        #expect(result.format == .png)
        let named = try await makePipeline().crop(.data(tiff, name: "chelsea.tif"), to: .size(width: 60, height: 45), options: FocalOptions(format: .webp))
        #expect(named.format == .webp)
    }

    @Test("an AVIF or a one-frame GIF source keeps its format, as thumbor; an AVIF too large for the encoder comes out as JPEG")
    func avifAndStillGIFSourcesKeepTheirFormat() async throws {
        // Both sources made first: the fixture's deadline runs from its opening.
        let chelsea = try SourceImage.open(path: Checkout.fixture("chelsea.png")).decode(width: 120, height: 90)
        let avif = try chelsea.encode(.avif), gif = try chelsea.encode(.gif)
        let kept = try await makePipeline().crop(.data(avif, name: "chelsea.avif"), to: .size(width: 60, height: 45))
        #expect(kept.format == .avif)
        #expect(try SourceImage.open(data: kept.data).format == "avif")
        let still = try await makePipeline().crop(.data(gif, name: "chelsea.gif"), to: .size(width: 60, height: 45))
        #expect(still.format == .gif)
        let named = try await makePipeline().crop(.data(gif, name: "chelsea.gif"), to: .size(width: 60, height: 45), options: FocalOptions(format: .png))
        #expect(named.format == .png, "a format asked for wins")
        // 2100 × 2000 is over the AVIF encoder's 4 MP: an output of that size is a JPEG (one asked
        // for as AVIF is refused, naming the bound).
        let options = FocalOptions()
        #expect(try options.outputFormat(for: "avif", size: PixelSize(width: 2100, height: 2000)) == .jpeg)
        #expect(try options.outputFormat(for: "avif", size: PixelSize(width: 2000, height: 2000)) == .avif)
        #expect(throws: LimitExceeded.self) { try FocalOptions(format: .avif).outputFormat(for: "avif", size: PixelSize(width: 2100, height: 2000)) }
    }

    @Test("every output format decodes back at the planned size", arguments: ImageFormat.allCases)
    func formats(format: ImageFormat) async throws {
        let options = FocalOptions(format: format, quality: 80)
        let result = try await makePipeline().crop(.file(Checkout.fixture("chelsea.png")), to: .size(width: 160, height: 90), options: options)
        let (decoded, read) = try OutputDecoding.open(result.data)
        #expect(read == (format == .heic ? "heif" : format.rawValue), "an AVIF is told from a HEIC by its brand")
        #expect(decoded.size == PixelSize(width: 160, height: 90))
        #expect(result.format == format)
    }
}

/// No output carries the source's metadata: a camera photo's EXIF (facerec_obama.jpg has 55
/// fields) leaves no `EXIF` chunk in a WebP rendered straight from the file, nor in a tiny one.
@Suite struct OutputMetadataTests {
    @Test func webpFromTheFileCarriesNoEXIF() async throws {
        let photo = ImageInput.file(Checkout.evalPhotos + "/facerec_obama.jpg")
        var options = FocalOptions(format: .webp)
        options.crop.detect = false
        for size in [PixelSize(width: 300, height: 300), PixelSize(width: 16, height: 16)] {
            let result = try await makePipeline().crop(photo, to: .size(width: size.width, height: size.height), options: options)
            #expect(result.data.range(of: Data("EXIF".utf8)) == nil, "\(size): \(result.data.count) bytes")
            #expect(result.data[12..<16] != Data("VP8X".utf8) || result.data[20] & 0x0C == 0, "no EXIF or XMP flag")
            if size.width == 16 { #expect(result.data.count < 400, "a 16-pixel WebP is a few hundred bytes: \(result.data.count)") }
        }
    }
}
