import Focal
import FocalTestSupport
import Foundation
import Testing

/// Every precision this CPU runs finds what fp32 finds: the same subjects, of the same kind and
/// box, with scores within a stated tolerance, on the fixtures and the development photos.
/// A subject scored near its threshold may be kept by one precision and not the other; one
/// found clear of the threshold by either must be found by both.
@Suite struct PrecisionAgreementTests {
    /// How far a score may move from fp32's: faces 0.1; cats, dogs and people 0.2 (int8 YOLO
    /// measured up to 0.16 on a person, 0.06 on a dog, with AVX-512 VNNI).
    static func maxConfidenceDelta(_ kind: SubjectKind) -> Double { kind == .face ? 0.1 : 0.2 }
    /// How much a box must overlap fp32's (int8 YOLO moved a person's box to IoU 0.75).
    static let minIoU = 0.7

    /// The settings to compare with fp32: each precision the CPU runs besides fp32 allowed alone
    /// with it, and `auto` (all allowed) when that is another mix.
    static var variants: [Set<InferencePrecision>] {
        let each = InferencePrecision.supportedByCPU.subtracting([.fp32]).sorted { $0.rawValue < $1.rawValue }.map { Set([.fp32, $0]) }
        let all = Set(InferencePrecision.allCases)
        return each.count > 1 ? each + [all] : each
    }

    /// The photos: every fixture JPEG, and the development set when it is beside the checkout.
    static var photos: [String] {
        let fixtures = ((try? FileManager.default.contentsOfDirectory(atPath: Checkout.fixture(""))) ?? [])
            .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.map(Checkout.fixture)
        let development = ((try? FileManager.default.contentsOfDirectory(atPath: Checkout.evalPhotos)) ?? [])
            .filter { $0.hasSuffix(".jpg") }.map { Checkout.evalPhotos + "/" + $0 }
        return (fixtures + development).sorted()
    }

    @Test(
        "each precision this CPU runs finds fp32's subjects",
        .enabled(if: !variants.isEmpty, "this CPU runs fp32 only: nothing to compare"))
    func agreesWithFP32() async throws {
        let reference = makePipeline { $0.precisions = [.fp32] }
        let thresholds = reference.configuration.objectThresholds.merging([.face: reference.configuration.faceThreshold]) { $1 }
        var worstDelta: [SubjectKind: Double] = [:], compared = 0
        for allowed in Self.variants {
            let other = makePipeline { $0.precisions = allowed }
            #expect(other.configuration.detectorPrecisions.map(\.precision) != reference.configuration.detectorPrecisions.map(\.precision))
            for path in Self.photos {
                let name = URL(fileURLWithPath: path).lastPathComponent
                // The kinds a default crop counts: the int8 model is calibrated on them. The other
                // classes of COCO, counted only when a request names them, agree less closely (up
                // to 0.22 apart on the development photos); `--precision fp32` gives fp32's.
                let counted = { (subject: Subject) in subject.kind != .saliency && subject.kind.traits.countsByDefault }
                let expected = try await reference.analyze(.file(path), scope: .everything).subjects.filter(counted)
                let found = try await other.analyze(.file(path), scope: .everything).subjects.filter(counted)
                for (mine, theirs, side) in [(expected, found, "fp32"), (found, expected, "\(allowed.sorted { $0.rawValue < $1.rawValue })")] {
                    for subject in mine {
                        let threshold = thresholds[subject.kind] ?? 0
                        let match = theirs.filter { $0.kind == subject.kind }.max { $0.box.iou(subject.box) < $1.box.iou(subject.box) }
                        if let match, match.box.iou(subject.box) >= Self.minIoU {
                            let delta = abs(match.confidence - subject.confidence)
                            worstDelta[subject.kind] = max(worstDelta[subject.kind] ?? 0, delta)
                            compared += 1
                            #expect(delta <= Self.maxConfidenceDelta(subject.kind), "\(name): \(subject.kind) at \(subject.box) scored \(subject.confidence) by \(side), \(match.confidence) by the other")
                        } else {
                            #expect(
                                subject.confidence < threshold + Self.maxConfidenceDelta(subject.kind),
                                "\(name): \(side) found a \(subject.kind) at \(subject.box) (\(subject.confidence)) the other did not")
                        }
                    }
                }
            }
        }
        print("PrecisionAgreementTests: \(compared) subjects compared over \(Self.variants.count) precision mixes, worst score difference by kind \(worstDelta.map { "\($0.key) \($0.value)" }.sorted())")
        #expect(compared > 0)
    }
}
