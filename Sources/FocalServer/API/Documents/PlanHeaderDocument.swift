import Focal

/// The `X-Focal-Plan` header, for `<focal-img>`'s `focal-load` event: `{"crop": [x, y, w, h],
/// "image": [w, h], "override"?: revision, "strategy", "subjects": [[kind, x, y, w, h, confidence]]}`
/// (at most 16 subjects, so that the header stays small).
struct PlanHeaderDocument: Encodable {
    /// One subject as an array: kind, then numbers.
    struct SubjectRow: Encodable {
        let subject: SubjectDocument

        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(subject.kind)
            for value in [subject.x, subject.y, subject.width, subject.height, subject.confidence] { try c.encode(value) }
        }
    }

    let crop: [Int]
    let image: [Int]
    let override: Int?
    let strategy: String
    let subjects: [SubjectRow]
    /// The answer's `CropVersion`, for URLs that last (`?v=`); absent when it has none.
    let version: String?

    init(_ result: CropResult, version: CropVersion?) {
        self.version = version?.description
        let plan = result.plan
        crop = [plan.crop.x, plan.crop.y, plan.crop.width, plan.crop.height]
        image = [plan.imageSize.width, plan.imageSize.height]
        override = result.overrideRevision
        strategy = plan.strategy.rawValue
        subjects = plan.subjects.prefix(16).map { SubjectRow(subject: SubjectDocument($0)) }
    }
}
