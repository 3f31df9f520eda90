/// What Focal knows about one image before a crop is planned: its size and its subjects.
public struct Analysis: Sendable {
    /// The opened image.
    public let image: SourceImage
    /// Everything detected, in pixels of the oriented image.
    public let subjects: [Subject]
    /// The SHA-256 of the image's bytes (hex), when it was identified by its content.
    public var contentID: String? = nil

    /// The oriented image size.
    public var size: PixelSize { image.size }

    /// Plans a crop of this image.
    /// - Throws: `PlanningError` for an invalid target or option.
    public func plan(_ target: CropTarget, options: CropOptions = .default) throws(PlanningError) -> CropPlan {
        try CropPlanner.plan(imageSize: image.size, target: target, subjects: subjects, options: options)
    }
}
