import Focal

/// `POST /v1/plan`'s answer: `{"image", "subjects", "frames", "options"}`, every frame planned
/// from one open and one detection, and the options as read (canonical spellings).
struct PlanAnswer: Encodable {
    let image: ImageDocument
    let subjects: [SubjectDocument]
    let frames: [PlanDocument]
    let options: [String: String]

    /// - Parameters:
    ///   - configuration: `FocalPipeline.configurationTag`, for each frame's `CropVersion`.
    ///   - previews: Each frame's `FramePreview`, in order; none when empty.
    init(_ plans: FramePlans, id: String?, options: FocalOptions, configuration: String, previews: [String?] = []) {
        let size = plans.analysis.size
        image = ImageDocument(id: id, size: size)
        subjects = plans.analysis.subjects.map(SubjectDocument.init)
        frames = plans.frames.enumerated().map { index, frame in
            PlanDocument(
                frame.plan, imageSize: size, target: frame.target, override: id.flatMap { id in frame.savedCrop.map { SavedCropDocument(image: id, saved: $0) } },
                withOverride: true,
                version: CropVersion(
                    contentID: id, configuration: configuration, revision: frame.savedCrop?.revision, savedCropsUnknown: plans.savedCropsUnknown
                )?.description,
                preview: index < previews.count ? previews[index] : nil, delivered: options.deliveredSize(of: frame.plan.outputSize))
        }
        self.options = Dictionary(uniqueKeysWithValues: CropOption.canonical(options).map { ($0.name, $0.value) })
    }
}

/// `POST /v1/detect`'s answer: `{"image", "subjects"}`.
struct DetectAnswer: Encodable {
    let image: ImageDocument
    let subjects: [SubjectDocument]
}

/// `POST /v1/images`'s answer: `{"id", "width", "height", "format"}`.
struct UploadAnswer: Encodable {
    let id: String
    let width: Int, height: Int
    let format: String
}

/// A saved crop's document from the store's record.
extension SavedCropDocument {
    init(_ saved: SavedCrop) {
        self.init(
            image: saved.image,
            saved: CropOverride(
                crop: saved.crop, revision: saved.revision, aspect: .aspect(width: saved.aspect.width, height: saved.aspect.height),
                updated: saved.updated))
    }
}

/// `GET /v1/images/{id}/overrides`'s answer: `{"image", "overrides"}`.
struct SavedCropsAnswer: Encodable {
    let image: String
    let overrides: [SavedCropDocument]
}
