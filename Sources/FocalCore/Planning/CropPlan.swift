/// What decided a crop: the built-in strategies are the static members; a library user's own
/// kind decides a crop of its own strategy (its row's `SubjectKindTraits.strategy`).
public struct CropStrategy: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The strategy's name, as JSON, headers and logs write it.
    public let rawValue: String

    /// A strategy by its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Built around faces.
    public static let faces = CropStrategy(rawValue: "faces")
    /// Built around cats and dogs.
    public static let pets = CropStrategy(rawValue: "pets")
    /// Built around whole people.
    public static let people = CropStrategy(rawValue: "people")
    /// Built around objects of the kinds a request named (`kinds(truck)`): COCO's other classes.
    public static let objects = CropStrategy(rawValue: "objects")
    /// Built around the most salient region.
    public static let saliency = CropStrategy(rawValue: "saliency")
    /// A plain centre crop: detection off or nothing found.
    public static let center = CropStrategy(rawValue: "center")
    /// Built around a focus point or region a person chose.
    public static let manual = CropStrategy(rawValue: "manual")
    /// No crop: the whole image (or its bounds) resized to the size asked (`stretch()`).
    public static let stretch = CropStrategy(rawValue: "stretch")

    /// The strategy for a subject kind (`SubjectKind.traits`).
    init(_ kind: SubjectKind) { self = kind.traits.strategy }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
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
    /// An animation's frames, each with its own crop of `outputSize`'s aspect (`MotionPlanner`);
    /// nil for a still output. `crop` is then the first frame's.
    public var frames: [FrameCrop]? = nil
    /// Where the subjects were placed when a placement was asked (`CropOptions.placement`): on
    /// each axis the third line used or why none was (`thirds: left, upper`, `thirds: whole,
    /// nearest upper`), or `point 0.3,0.5`; nil otherwise (centred).
    public var placement: String? = nil
}

extension CropPlan {
    /// A plan made without the planner (`stretch()`'s whole image): every field as given, no frames.
    public init(imageSize: PixelSize, crop: PixelRect, outputSize: PixelSize, region: Box?, subjects: [Subject], strategy: CropStrategy) {
        self.imageSize = imageSize
        self.crop = crop
        self.outputSize = outputSize
        self.region = region
        self.subjects = subjects
        self.strategy = strategy
    }
}
