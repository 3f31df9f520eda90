import Focal
import FocalTestSupport
import Foundation
import Testing

/// What Focal 867e8ce found on real photos with OpenCV 4.6's Darknet importer and YuNet through
/// cv::dnn, before detection moved to OpenVINO: `Reference/opencv-darknet-detections.json` (its
/// header says how it was made).
struct OpenCVReference: Decodable {
    /// One subject as `focal detect --json` printed it: box in image pixels.
    struct Found: Decodable, Sendable {
        let kind: SubjectKind
        let x: Double, y: Double, width: Double, height: Double
        let confidence: Double

        var box: Box { Box(x: x, y: y, width: width, height: height) }
    }

    /// One photo of one run.
    struct Photo: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        /// `Fixtures` (in the checkout) or `../shared/eval/dev` (beside it).
        let folder: String
        let width: Int, height: Int
        let subjects: [Found]
        /// The run's accuracy, set on reading.
        var accuracy = Accuracy.fast

        enum CodingKeys: String, CodingKey { case name, folder, width, height, subjects }

        var path: String { folder == "Fixtures" ? Checkout.fixture(name) : Checkout.evalPhotos + "/" + name }
        var inCheckout: Bool { folder == "Fixtures" }
        var testDescription: String { "\(name) (\(accuracy.rawValue))" }
    }

    let runs: [String: [Photo]]

    static let path = Checkout.root.appendingPathComponent("Tests/FocalDetectionTests/Reference/opencv-darknet-detections.json").path

    /// Every photo of every run, the fixtures' (`inCheckout`) or the development set's.
    static func photos(inCheckout: Bool) throws -> [Photo] {
        let reference = try JSONDecoder().decode(Self.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        return reference.runs.sorted { $0.key > $1.key }.flatMap { run in
            run.value.filter { $0.inCheckout == inCheckout }.map { photo in
                var photo = photo
                photo.accuracy = Accuracy(rawValue: run.key) ?? .fast
                return photo
            }
        }
    }
}

/// The converted YOLOv4-tiny (Darknet → ONNX by `focalscripts.darknet_onnx`) and YuNet on
/// OpenVINO find what the OpenCV build found, on the same photos with the same settings: every
/// face, cat, dog and person of the reference, of the same kind, box and score, and no other above
/// its threshold; the same salient region.
@Suite struct ConvertedModelTests {
    /// How close a subject must come to the reference's.
    struct Tolerance {
        let minIoU: Double
        let maxConfidenceDelta: Double
    }

    /// The tolerance for `kind` in the run at `accuracy`, about 2–3 times the worst measured on the
    /// reference's photos (OpenVINO 2026.4.1 against OpenCV 4.6.0):
    /// - `.fast`, every kind: IoU 0.9988 (a 13 × 15 px face; the reference's boxes are rounded to
    ///   0.01 px, which alone costs up to 0.0014 there), confidence 0.0002 (a dog).
    /// - `.accurate`, faces: the same as `.fast` (IoU 0.9990, confidence 0.00005).
    /// - `.accurate`, cats, dogs and people: IoU 0.957 (a person on camera.png), confidence 0.0135
    ///   (a person on ultralytics_bus.jpg) past the one in `knownDeviations`. Only these differ: the
    ///   bordered pass (`ObjectDetector.passes`) frames the image differently (focal_ov.c rounds the
    ///   border to whole network pixels and resizes the photo into the rest; OpenCV resized the
    ///   bordered image as a whole), so its boxes move by a fraction of a network pixel.
    /// - The salient region, both runs: IoU 0.9999, confidence 0.00005 (the reference's rounding).
    static func tolerance(_ kind: SubjectKind, _ accuracy: Accuracy) -> Tolerance {
        switch (kind, accuracy) {
        case (.saliency, _): Tolerance(minIoU: 0.999, maxConfidenceDelta: 0.0005)
        case (.cat, .accurate), (.dog, .accurate), (.person, .accurate): Tolerance(minIoU: 0.9, maxConfidenceDelta: 0.03)
        default: Tolerance(minIoU: 0.996, maxConfidenceDelta: 0.0005)
        }
    }

    /// Subjects whose score differs past the tolerance, as measured ("accuracy photo kind
    /// reference-confidence"): each is a known issue, and one that comes within the tolerance again
    /// fails the test until it is removed from here.
    /// - The person at 0.7417 on the bus photo scores 0.7781 in the bordered pass (see `tolerance`).
    static let knownDeviations: Set<String> = ["accurate ultralytics_bus.jpg person 0.7417"]

    /// How far above its kind's threshold a subject the OpenCV build did not report may score.
    static let extraMargin = 0.05

    static var hasDevelopmentPhotos: Bool { FileManager.default.fileExists(atPath: Checkout.evalPhotos) }

    @Test("the fixtures: what OpenCV's Darknet path and YuNet found", arguments: try OpenCVReference.photos(inCheckout: true))
    func fixtures(_ photo: OpenCVReference.Photo) async throws {
        try await compare(photo)
    }

    @Test(
        "the development photos (dogs, cats, groups): what OpenCV's Darknet path and YuNet found",
        .enabled(if: hasDevelopmentPhotos, "no ../shared/eval/dev beside the checkout: the reference's development photos are skipped"),
        arguments: try OpenCVReference.photos(inCheckout: false))
    func developmentPhotos(_ photo: OpenCVReference.Photo) async throws {
        try await compare(photo)
    }

    private func compare(_ photo: OpenCVReference.Photo) async throws {
        // What is compared is what was found, not how fast: the cases run side by side (16 of
        // them, `accurate` too) on a machine that may be busy, so the job's time limit is long.
        // fp32, as the reference ran: the other precisions are held to fp32 by PrecisionAgreementTests.
        let pipeline = makePipeline {
            $0.limits.timeout = .seconds(300)
            $0.precisions = [.fp32]
        }
        let analysis = try await pipeline.analyze(.file(photo.path), accuracy: photo.accuracy, scope: .everything)
        #expect(analysis.size == PixelSize(width: photo.width, height: photo.height))
        let found = analysis.subjects
        let thresholds = pipeline.configuration.objectThresholds.merging([.face: pipeline.configuration.faceThreshold]) { $1 }

        for expected in photo.subjects {
            let tolerance = Self.tolerance(expected.kind, photo.accuracy)
            let same = found.filter { $0.kind == expected.kind }
            guard let match = same.max(by: { $0.box.iou(expected.box) < $1.box.iou(expected.box) }) else {
                Issue.record("\(photo): no \(expected.kind) where OpenCV found one at \(expected.box) (\(expected.confidence)); found \(found)")
                continue
            }
            let iou = match.box.iou(expected.box), delta = abs(match.confidence - expected.confidence)
            #expect(iou >= tolerance.minIoU, "\(photo): \(expected.kind) at \(match.box), OpenCV \(expected.box)")
            let known = Self.knownDeviations.contains("\(photo.accuracy.rawValue) \(photo.name) \(expected.kind.rawValue) \(expected.confidence)")
            withKnownIssue("scores differently in the bordered pass (ConvertedModelTests.knownDeviations)") {
                #expect(delta <= tolerance.maxConfidenceDelta, "\(photo): \(expected.kind) scored \(match.confidence), OpenCV \(expected.confidence)")
            } when: {
                known
            }
        }
        for subject in found where subject.kind != .saliency {
            guard let threshold = thresholds[subject.kind], subject.confidence > threshold + Self.extraMargin else { continue }
            let minIoU = Self.tolerance(subject.kind, photo.accuracy).minIoU
            let inReference = photo.subjects.contains { $0.kind == subject.kind && $0.box.iou(subject.box) >= minIoU }
            #expect(inReference, "\(photo): a \(subject.kind) at \(subject.box) (\(subject.confidence)) that OpenCV did not find")
        }
    }
}
