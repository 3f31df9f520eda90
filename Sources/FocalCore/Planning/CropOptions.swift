/// Everything that shapes a crop besides the image and the target.
public struct CropOptions: Hashable, Sendable, Encodable {
    /// Which subjects to frame; default `.all`.
    public var scheme: BoundingScheme = .all
    /// Room around each subject; default 10 % of its size.
    public var padding: Padding = .default
    /// Extra room above each face, as a fraction of the face's height, for the forehead and
    /// hair that detectors leave out; default 0.25.
    public var faceHeadroom: Double = 0.25
    /// How large the crop is; default `.fill`.
    public var zoom: Zoom = .fill
    /// A manual focus point or region that skips detection; default none.
    public var override: ManualOverride? = nil
    /// Whether to use detected subjects at all; `false` gives a plain centre crop. Default `true`.
    public var detect: Bool = true
    /// The part of the image the crop must stay inside (a manual crop made first, as thumbor's
    /// `AxB:CxD`); the plan treats it as the whole image. Default nil: the whole image.
    public var bounds: PixelRect? = nil

    /// Whether a crop with these options needs detected subjects: detection on and no override.
    public var needsDetection: Bool { detect && override == nil }
    /// Subjects below this confidence are ignored, per kind; kinds not listed use 0.
    public var minimumConfidence: [SubjectKind: Double] = [:]
    /// Which kinds of subject count, and in which order (`filters:kinds(…)`); default nil: every
    /// kind, faces, then pets, then people, then saliency.
    public var kinds: SubjectPreference? = nil
    /// Where the kept subjects sit when the crop holds them with room to spare (`Placement`);
    /// default nil: centred.
    public var placement: Placement? = nil
    /// A tight crop: the kept subjects' padded box, output at this side of a size target, the
    /// other side from the box (`TightSide`); default nil: the target's aspect.
    public var tight: TightSide? = nil

    /// The defaults listed on each property.
    public static let `default` = CropOptions()

    /// Creates options; every parameter defaults to the value documented on its property.
    public init(
        scheme: BoundingScheme = .all, padding: Padding = .default, faceHeadroom: Double = 0.25,
        zoom: Zoom = .fill, override: ManualOverride? = nil, detect: Bool = true,
        minimumConfidence: [SubjectKind: Double] = [:], bounds: PixelRect? = nil
    ) {
        self.scheme = scheme
        self.padding = padding
        self.faceHeadroom = faceHeadroom
        self.zoom = zoom
        self.override = override
        self.detect = detect
        self.minimumConfidence = minimumConfidence
        self.bounds = bounds
    }

    /// Checks every option is in range.
    public func validate() throws(PlanningError) {
        try padding.validate()
        try zoom.validate()
        guard faceHeadroom.isFinite, faceHeadroom >= 0, faceHeadroom <= 2 else {
            throw PlanningError.invalidOption("face headroom \(faceHeadroom) must be between 0 and 2")
        }
        for (kind, value) in minimumConfidence where !(value.isFinite && value >= 0) {
            throw PlanningError.invalidOption("minimum confidence \(value) for \(kind.rawValue) must be a number of zero or more")
        }
        switch override {
        case let .focus(x, y)? where !(x.isFinite && y.isFinite):
            throw PlanningError.invalidOption("focus \(x),\(y) must be two finite numbers (pixels)")
        case let .relativeFocus(x, y)? where !(x.isFinite && y.isFinite):
            throw PlanningError.invalidOption("focus \(x),\(y) must be two finite fractions")
        case let .relativeRegion(box)? where !(box.x.isFinite && box.y.isFinite && box.width.isFinite && box.height.isFinite && box.width > 0 && box.height > 0):
            throw PlanningError.invalidOption("focus region \(box) must be finite fractions with a positive width and height")
        case let .region(rect)? where !(rect.width > 0 && rect.height > 0):
            throw PlanningError.invalidOption("region \(rect) must have a positive width and height")
        default: break
        }
        if let bounds, !(bounds.width > 0 && bounds.height > 0) {
            throw PlanningError.invalidOption("crop bounds \(bounds) must have a positive width and height")
        }
    }
}
