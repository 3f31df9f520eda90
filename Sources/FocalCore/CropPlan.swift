/// What decided a crop.
public enum CropStrategy: String, Hashable, Sendable, Codable, CaseIterable {
    /// Built around faces.
    case faces
    /// Built around cats and dogs.
    case pets
    /// Built around whole people.
    case people
    /// Built around the most salient region.
    case saliency
    /// A plain centre crop: detection off or nothing found.
    case center
    /// Built around a focus point or region a person chose.
    case manual

    /// The strategy for a subject kind (`SubjectKind.traits`).
    init(_ kind: SubjectKind) { self = kind.traits.strategy }
}

/// The planner's answer: where to crop and why.
public struct CropPlan: Hashable, Sendable, Codable {
    /// The oriented image size the plan is for.
    public var imageSize: PixelSize
    /// The crop, inside the image, at the target aspect within one pixel.
    public var crop: PixelRect
    /// The size the crop is resized to: the target size, or the crop's own size for an aspect.
    public var outputSize: PixelSize
    /// The padded region the crop was built around; nil for a centre crop.
    public var region: Box?
    /// The subjects the crop was built around.
    public var subjects: [Subject]
    /// What decided the crop.
    public var strategy: CropStrategy
}
