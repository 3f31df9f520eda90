public import Focal
import FocalCore
/// The quality scores of docs/design.md §6, accumulated over image-aspect pairs.
public struct EvalScore: Sendable {
    /// Pairs where one crop can hold every face, and how many kept them all.
    public private(set) var allKept = Ratio()
    /// Face-aspect pairs, and how many kept the face (≥ 90 % of its box inside).
    public private(set) var faceKept = Ratio()
    /// Face-aspect pairs, and how many show part of the face but cut its top.
    public private(set) var headCut = Ratio()
    /// Cat/dog-aspect pairs, and how many kept ≥ 80 % of min(pet area, crop area).
    public private(set) var petKept = Ratio()
    /// Crops whose aspect is off by more than one pixel.
    public private(set) var aspectErrors = 0

    /// A count of successes out of a total.
    public struct Ratio: Sendable, CustomStringConvertible {
        /// An empty count.
        public init() {}
        /// Successes.
        public var hits = 0
        /// Cases.
        public var total = 0
        /// Successes / cases, 0 when there are none.
        public var value: Double { total == 0 ? 0 : Double(hits) / Double(total) }
        public mutating func add(_ hit: Bool) {
            total += 1
            if hit { hits += 1 }
        }
        public var description: String {
            total == 0 ? "n/a" : "\(String(format1: value * 100))% (\(hits)/\(total))"
        }
    }

    /// Creates an empty score.
    public init() {}

    /// Scores one crop of an image against its labels.
    /// - Parameters:
    ///   - crop: The crop rectangle.
    ///   - imageSize: The image size.
    ///   - aspect: The requested aspect (width, height).
    ///   - labels: The image's labelled boxes.
    public mutating func add(crop: PixelRect, imageSize: PixelSize, aspect: (Int, Int), labels: [EvalLabels.LabeledBox]) {
        let c = crop.box
        let expected = Double(crop.height) * Double(aspect.0) / Double(aspect.1)
        if abs(Double(crop.width) - expected) > 1 || !crop.isInside(imageSize) { aspectErrors += 1 }

        let faces = labels.filter { $0.kind == "face" && $0.counts }.map(\.box)
        if let union = faces.dropFirst().reduce(faces.first, { $0?.union($1) }) {
            let fill = CropPlanner.fillSize(imageSize: imageSize, aspect: aspect)
            if union.width <= Double(fill.width) && union.height <= Double(fill.height) {
                allKept.add(faces.allSatisfy { $0.fractionInside(c) >= 0.9 })
            }
        }
        for face in faces {
            let inside = face.fractionInside(c)
            faceKept.add(inside >= 0.9)
            headCut.add(inside > 0 && face.y < c.y - 0.5)
        }
        for pet in labels where pet.kind == "cat" || pet.kind == "dog" {
            let overlap = pet.box.intersection(c)?.area ?? 0
            petKept.add(overlap >= 0.8 * min(pet.box.area, c.area))
        }
    }
}

extension String {
    /// A number with one decimal.
    package init(format1 value: Double) {
        let tenths = Int(rounding: value * 10, within: -(1 << 53)...(1 << 53))
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
