public import Focal
/// Detection recall and precision per kind against a labelled folder.
///
/// A detection matches a label of its kind when their IoU is at least 0.3 or the detection's
/// centre lies inside the label; each label matches at most one detection. Recall counts labels
/// (faces marked difficult are left out); precision counts detections on images
/// whose labels are exhaustive for that kind.
public struct EvalDetection: Sendable {
    /// Per kind: labels found out of labels.
    public private(set) var recall: [SubjectKind: EvalScore.Ratio] = [:]
    /// Per kind: detections that match a label, out of detections.
    public private(set) var precision: [SubjectKind: EvalScore.Ratio] = [:]
    /// Cats and dogs detected on images with no cat or dog labelled.
    public private(set) var falsePets = 0
    /// Cat and dog labels found by a cat or dog detection, whichever it was named: what a crop
    /// needs, since both are framed alike.
    public private(set) var petRecall = EvalScore.Ratio()

    /// The kinds scored.
    public static let kinds: [SubjectKind] = [.face, .cat, .dog, .person]

    /// Creates empty counts.
    public init() {}

    /// Adds one image.
    public mutating func add(detected: [Subject], labels: [EvalLabels.LabeledBox], exhaustive: [String]) {
        for kind in Self.kinds {
            let found = detected.filter { $0.kind == kind }
            let labelled = labels.filter { $0.kind == kind.rawValue }
            var used = Set<Int>()
            var matchedDetections = 0
            for detection in found {
                let match = labelled.indices.first { i in
                    !used.contains(i)
                        && (detection.box.iou(labelled[i].box) >= 0.3
                            || labelled[i].box.contains(x: detection.box.midX, y: detection.box.midY))
                }
                if let match {
                    used.insert(match)
                    matchedDetections += 1
                }
            }
            for (i, label) in labelled.enumerated() where label.counts {
                recall[kind, default: EvalScore.Ratio()].add(used.contains(i))
            }
            if exhaustive.contains(kind.rawValue) {
                for i in 0..<found.count { precision[kind, default: EvalScore.Ratio()].add(i < matchedDetections) }
            }
        }
        let pets = detected.filter { $0.kind == .cat || $0.kind == .dog }
        var usedPets = Set<Int>()
        for label in labels where label.kind == "cat" || label.kind == "dog" {
            let match = pets.indices.first { i in
                !usedPets.contains(i) && (pets[i].box.iou(label.box) >= 0.3 || label.box.contains(x: pets[i].box.midX, y: pets[i].box.midY))
            }
            if let match { usedPets.insert(match) }
            petRecall.add(match != nil)
        }
        if !labels.contains(where: { $0.kind == "cat" || $0.kind == "dog" }) {
            falsePets += detected.filter { $0.kind == .cat || $0.kind == .dog }.count
        }
    }
}
