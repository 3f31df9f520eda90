import Focal

/// thumbor's `meta/` JSON, `{"thumbor": {"source", "operations", "target"}}`, with Focal's own
/// `"focal"` object beside it: the plan (with its crop version and inline preview), the saved
/// crop, the image and every subject found.
struct MetaDocument: Encodable {
    struct Source: Encodable {
        let url: String
        let width: Int, height: Int
        let frameCount: Int
    }

    /// One of thumbor's operations: a crop, a resize or a flip.
    struct Operation: Encodable {
        let type: String
        var left: Int? = nil, top: Int? = nil, right: Int? = nil, bottom: Int? = nil
        var width: Int? = nil, height: Int? = nil
    }

    struct Thumbor: Encodable {
        let source: Source
        let operations: [Operation]
        let target: SizeDocument
    }

    /// The plan, with the image and every subject found.
    struct FocalPart: Encodable {
        let plan: PlanDocument
        let image: ImageDocument
        let subjects: [SubjectDocument]

        private enum Keys: String, CodingKey { case image, subjects }

        func encode(to encoder: any Encoder) throws {
            try plan.encode(to: encoder)
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(image, forKey: .image)
            try c.encode(subjects, forKey: .subjects)
        }
    }

    let thumbor: Thumbor
    let focal: FocalPart

    /// The document for the plan of one frame of `url`'s image.
    /// - Parameters:
    ///   - version: The frame's `CropVersion`, written as `"version"` when given.
    ///   - preview: The frame's `FramePreview`, written as `"preview"` when given.
    /// - Parameter delivered: The size the image is delivered at (`FocalOptions.deliveredSize(of:)`).
    init(
        url: ThumborURL, analysis: Analysis, frame: FramePlan, id: String?, flip: Flip, version: String? = nil, preview: String? = nil,
        delivered: PixelSize? = nil
    ) {
        let size = analysis.size
        let plan = frame.plan
        let crop = plan.crop
        var operations = [Operation(type: "crop", left: crop.x, top: crop.y, right: crop.x + crop.width, bottom: crop.y + crop.height)]
        if plan.outputSize != crop.size { operations.append(Operation(type: "resize", width: plan.outputSize.width, height: plan.outputSize.height)) }
        if flip.contains(.horizontal) { operations.append(Operation(type: "flip_horizontally")) }
        if flip.contains(.vertical) { operations.append(Operation(type: "flip_vertically")) }
        thumbor = Thumbor(
            source: Source(url: url.source, width: size.width, height: size.height, frameCount: analysis.image.pages), operations: operations,
            target: SizeDocument(delivered ?? plan.outputSize))
        let saved = id.flatMap { id in frame.savedCrop.map { SavedCropDocument(image: id, saved: $0) } }
        focal = FocalPart(
            plan: PlanDocument(plan, imageSize: size, override: saved, withOverride: true, version: version, preview: preview, delivered: delivered),
            image: ImageDocument(id: id, size: size),
            subjects: analysis.subjects.map(SubjectDocument.init))
    }
}
