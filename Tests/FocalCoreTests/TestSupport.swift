import FocalCore

// Small builders and measures shared by the planner tests. Nothing here calls the planner's
// internals: every expectation is stated in terms of the public API and docs/design.md §3.

/// A subject of `kind` at (x, y) of size w × h.
func subject(_ kind: SubjectKind, _ x: Double, _ y: Double, _ w: Double, _ h: Double, confidence: Double = 1) -> Subject {
    Subject(kind: kind, box: Box(x: x, y: y, width: w, height: h), confidence: confidence)
}

/// A face at (x, y) of size w × h.
func face(_ x: Double, _ y: Double, _ w: Double, _ h: Double, confidence: Double = 1) -> Subject {
    subject(.face, x, y, w, h, confidence: confidence)
}

/// Plans a crop of an image of `width` × `height`.
func planCrop(
    _ width: Int, _ height: Int, _ target: CropTarget, _ subjects: [Subject] = [], _ options: CropOptions = .default
) throws -> CropPlan {
    try CropPlanner.plan(imageSize: PixelSize(width: width, height: height), target: target, subjects: subjects, options: options)
}

/// Options without padding or face headroom, so that a subject's region is its own box.
let noPadding = CropOptions(padding: .fraction(0), faceHeadroom: 0)

extension PixelRect {
    var maxX: Int { x + width }
    var maxY: Int { y + height }
}

/// Whether the whole box shows in the crop (half a pixel of slack for fractional boxes).
func isWhole(_ box: Box, in crop: PixelRect) -> Bool {
    crop.box.contains(box, tolerance: 0.5)
}

/// Whether the crop's edge runs through the middle of the box: between a quarter and three
/// quarters of it shows.
func isCutThroughMiddle(_ box: Box, by crop: PixelRect) -> Bool {
    let shown = box.fractionInside(crop.box)
    return shown >= 0.25 && shown <= 0.75
}

/// Every position of a crop of `size` inside an image of `image`, one pixel apart.
func allPlacements(of size: PixelSize, in image: PixelSize) -> [PixelRect] {
    var result: [PixelRect] = []
    for y in 0...(image.height - size.height) {
        for x in 0...(image.width - size.width) {
            result.append(PixelRect(x: x, y: y, width: size.width, height: size.height))
        }
    }
    return result
}

/// The error a throwing call raised, or nil.
func planningError(_ body: () throws(PlanningError) -> Void) -> PlanningError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}

extension PlanningError {
    var isInvalidTarget: Bool { if case .invalidTarget = self { true } else { false } }
    var isInvalidOption: Bool { if case .invalidOption = self { true } else { false } }
    var isEmptyImage: Bool { if case .emptyImage = self { true } else { false } }
}

/// Whether two boxes agree to within `tolerance` on every edge.
func close(_ a: Box?, _ b: Box, tolerance: Double = 1e-6) -> Bool {
    guard let a else { return false }
    return abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance
        && abs(a.width - b.width) <= tolerance && abs(a.height - b.height) <= tolerance
}
