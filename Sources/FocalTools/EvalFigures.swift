import Focal

/// The figures of one `focal eval` run by name: the object `--json` prints and the values
/// `--require` checks.
public struct EvalFigures: Sendable {
    /// Counts: `images`, `crops`, `errors`, `aspect_errors`, `false_pets`.
    public private(set) var counts: [String: Int]
    /// Ratios and times: the crop scores, `ms_per_image`, `ms_per_crop`, `pet_recall`, and
    /// `KIND_recall` and `KIND_precision` for each kind that had labels (recall) or exhaustive
    /// labels (precision).
    public private(set) var measures: [String: Double]

    /// Every name a run can have; a kind's recall or precision is left out of a run that had no
    /// label to measure it on.
    public static let names: [String] = [
        "images", "crops", "errors", "aspect_errors", "false_pets", "all_kept", "face_kept", "head_cut", "pet_kept", "pet_recall",
        "ms_per_image", "ms_per_crop",
    ] + EvalDetection.kinds.flatMap { ["\($0.rawValue)_recall", "\($0.rawValue)_precision"] }

    /// Gathers a run's figures.
    /// - Parameters:
    ///   - images: Labelled photos.
    ///   - crops: Crops planned.
    ///   - errors: Photos that failed.
    ///   - score: The crop scores.
    ///   - detection: Detection recall and precision.
    ///   - msPerImage: Milliseconds per image, open and detect.
    ///   - msPerCrop: Milliseconds per crop, amortised.
    public init(
        images: Int, crops: Int, errors: Int, score: EvalScore, detection: EvalDetection, msPerImage: Double, msPerCrop: Double
    ) {
        counts = [
            "images": images, "crops": crops, "errors": errors, "aspect_errors": score.aspectErrors, "false_pets": detection.falsePets,
        ]
        measures = [
            "all_kept": score.allKept.value, "face_kept": score.faceKept.value, "head_cut": score.headCut.value,
            "pet_kept": score.petKept.value, "pet_recall": detection.petRecall.value, "ms_per_image": msPerImage,
            "ms_per_crop": msPerCrop,
        ]
        for kind in EvalDetection.kinds {
            if let r = detection.recall[kind] { measures["\(kind.rawValue)_recall"] = r.value }
            if let p = detection.precision[kind] { measures["\(kind.rawValue)_precision"] = p.value }
        }
    }

    /// The figure named `name`, or nil when this run has none by that name.
    public func value(_ name: String) -> Double? {
        if let count = counts[name] { return Double(count) }
        return measures[name]
    }

    /// A figure as `focal eval --json` prints it: a count as an integer, a measure as a number.
    public enum Figure: Encodable, Sendable {
        case count(Int)
        case measure(Double)

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case let .count(n): try c.encode(n)
            case let .measure(x): try c.encode(x)
            }
        }
    }

    /// Every figure, counts as integers: the object `focal eval --json` prints.
    public var document: [String: Figure] {
        var document = measures.mapValues(Figure.measure)
        for (name, count) in counts { document[name] = .count(count) }
        return document
    }
}
