public import FocalCore

/// A plan: `{"strategy", "crop", "relative", "output", "used", "region"}` (and `"placement"` when
/// one was asked: what it did, `CropPlan.placement`), and for a frame of many
/// also `"target"` and `"override"` (the saved crop that decided it, or null). An animated output's
/// plan also has `"frames"`: each frame's `{"crop", "delay"}` (`crop` is then the first frame's).
public struct PlanDocument: Encodable, Sendable {
    /// What decided the crop: `CropStrategy`'s name (`faces`, `pets`, `people`, `saliency`, `center`,
    /// `manual`, ...).
    public let strategy: String
    /// The crop, in pixels of the image.
    public let crop: BoxDocument
    /// The crop in fractions of the image's width and height (0 to 1).
    public let relative: BoxDocument
    /// The size of the image delivered.
    public let output: SizeDocument
    /// The subjects the crop was built around.
    public let used: [SubjectDocument]
    /// The padded region the crop was built around; nil (written as null) for a centre crop.
    public let region: BoxDocument?
    /// The frame asked for, when this is one of many (`400x300` or `16:9`).
    public let target: String?
    /// Whether `override` is written (a frame of many, or `meta/`'s plan).
    let hasOverride: Bool
    /// The saved crop (a person's override) that decided the plan, if one did.
    public let override: SavedCropDocument?
    /// What the frame's image URL answers depends on beyond the URL (the server's crop version),
    /// written when given.
    public let version: String?
    /// The crop as a tiny inline image (a `data:` URI), written when given.
    public let preview: String?
    /// Each frame's crop and delay, for an animated output.
    public let frames: [FrameDocument]?
    /// Where the subjects were placed, when a placement was asked (`CropPlan.placement`).
    public let placement: String?

    /// A plan of an image of `imageSize`.
    /// - Parameters:
    ///   - plan: The plan written.
    ///   - imageSize: The size of the image the plan is for: `"relative"` is the crop in fractions
    ///     of it.
    ///   - target: The frame, written into the document when given.
    ///   - override: The saved crop that decided it; written (null when nil) when `withOverride`.
    ///   - withOverride: Whether `"override"` is written even when `override` is nil (a frame of
    ///     many, or `meta/`'s plan); default false.
    ///   - version: Written as `"version"` when given.
    ///   - preview: Written as `"preview"` when given.
    ///   - delivered: The size the image is delivered at, when its options change it
    ///     (`FocalOptions.deliveredSize(of:)`); default the plan's output size.
    public init(
        _ plan: CropPlan, imageSize: PixelSize, target: CropTarget? = nil, override: SavedCropDocument? = nil, withOverride: Bool = false,
        version: String? = nil, preview: String? = nil, delivered: PixelSize? = nil
    ) {
        self.version = version
        self.preview = preview
        strategy = plan.strategy.rawValue
        crop = BoxDocument(plan.crop.box)
        relative = BoxDocument(plan.crop, relativeTo: imageSize)
        output = SizeDocument(delivered ?? plan.outputSize)
        used = plan.subjects.map(SubjectDocument.init)
        region = plan.region.map(BoxDocument.init)
        self.target = target?.description
        hasOverride = withOverride || override != nil
        self.override = override
        frames = plan.frames?.map(FrameDocument.init)
        placement = plan.placement
    }

    private enum Keys: String, CodingKey { case strategy, crop, relative, output, used, region, target, override, version, preview, frames, placement }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(strategy, forKey: .strategy)
        try c.encode(crop, forKey: .crop)
        try c.encode(relative, forKey: .relative)
        try c.encode(output, forKey: .output)
        try c.encode(used, forKey: .used)
        try c.encode(region, forKey: .region)  // null when there is none
        try c.encodeIfPresent(target, forKey: .target)
        if hasOverride { try c.encode(override, forKey: .override) }
        try c.encodeIfPresent(version, forKey: .version)
        try c.encodeIfPresent(preview, forKey: .preview)
        try c.encodeIfPresent(frames, forKey: .frames)
        try c.encodeIfPresent(placement, forKey: .placement)
    }
}

/// One frame of an animated output: `{"crop": {"x", "y", "width", "height"}, "delay": ms}`.
public struct FrameDocument: Encodable, Sendable {
    public let crop: PixelRectDocument
    public let delay: Int

    /// The frame's document.
    public init(_ frame: FrameCrop) {
        crop = PixelRectDocument(frame.crop)
        delay = frame.delay
    }
}

/// An image: `{"id", "width", "height"}` (`id` its SHA-256 or null).
public struct ImageDocument: Encodable, Sendable {
    public let id: String?
    public let width: Int, height: Int

    /// The image's document.
    public init(id: String?, size: PixelSize) { (self.id, width, height) = (id, size.width, size.height) }

    private enum Keys: String, CodingKey { case id, width, height }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)  // null when unknown
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
    }
}
