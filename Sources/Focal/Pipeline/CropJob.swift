import FocalCore
import FocalImaging
import FocalRuntime
import Foundation

/// What one crop or plan knows so far: filled in by its steps, in order, and read by the ones
/// after them (`CropStep`). A step never changes what an earlier one resolved: the options are
/// resolved once (the saved crop found) before the result is looked up, and the crop the plan
/// reads (`frameCrop`) follows from them without changing the key.
struct CropJob: Sendable {
    /// What a saved crop lookup found.
    enum SavedCrop: Sendable {
        /// Not asked yet: the identity or the target is not known.
        case notAsked
        /// None applies (or none can: no store, no detection, no content identity).
        case none
        /// This one applies.
        case found(CropOverride)
        /// The store could not say (`SavedCropsUnavailable`).
        case unknown
    }

    /// The image as given.
    let input: ImageInput
    /// How the target follows from the image; nil for a job that plans no frame of its own (the
    /// shared part of a plan of many frames, an analysis).
    var rule: TargetRule?
    /// The detector signature, part of result keys.
    let detectors: String
    /// The scopes of detection this job lists: `.crop` for a crop.
    let scopes: Set<DetectionScope>
    /// The options, resolved as the steps go (the saved crop and its revision).
    var options: FocalOptions
    /// The image's identity: given, or its content's once it is read.
    var identity: ImageIdentity?
    /// Where its bytes are: the input's, or in memory once read or fetched.
    var location: ImageInput.Location
    /// Whether it has been fetched (or read) and identified.
    var fetched = false
    /// The opened image.
    var image: SourceImage?
    /// The target, once resolved (a fixed one at once, a derived one once the image is open).
    var target: CropTarget?
    /// The saved crop, once asked for.
    var savedCrop: SavedCrop = .notAsked
    /// The crop options with a saved crop's bounds, once the image's size is known
    /// (`ApplySavedCrop`); nil when no saved crop applies. They follow from the saved crop, the
    /// target, the image and the upscale limit, so the result key holds those instead.
    var frameCrop: CropOptions?
    /// The result key last looked up, so that a lookup runs once per key.
    var lookedUp: String?
    /// The part of the image the crop happens in when it depends on the image (`trim`, a
    /// relative crop), once `ResolveBounds` has found it; nil otherwise.
    var bounds: PixelRect?
    /// Whether `ResolveBounds` has run.
    var boundsResolved = false
    /// Whether `LoadOverlays` has identified the overlays (their content IDs in `options`).
    var overlaysIdentified = false
    /// Each overlay's image by slot (`OverlaySlot.name`), once `LoadOverlays` or `OpenOverlays`
    /// has read it.
    var overlayImages: [String: SourceImage] = [:]
    /// The decode the detectors and the render share.
    var copy: WorkingCopy?
    /// What the detectors found, by scope.
    var subjects: [DetectionScope: [Subject]]?
    /// The animation whose frames the output animates (`ReadAnimation`); nil for a still output.
    var animation: Animation?
    /// What the detectors found in sampled frames of the animation, frame 0 first (`DetectMotion`).
    var frameSubjects: [(frame: Int, subjects: [Subject])]?
    /// The plan.
    var plan: CropPlan?
    /// What a redaction hides, in pixels of the oriented image (`FindRedactions`), once found;
    /// empty for an animation, whose frames are searched as they are rendered (`Render`).
    var redacted: [Box]?
    /// What a redaction hides in each overlay's image by slot, in its own pixels: the output
    /// shows them too.
    var redactedOverlays: [String: [Box]] = [:]
    /// The result: from a cache, or rendered.
    var result: CropResult?
    /// Where the job's time went, step by step (`CropResult.timings`).
    let clock = StepClock()
    /// Whether the job is done (a cached result): the steps after stop.
    var finished = false
    /// Why the job fell back to a centre crop (its detection's error), when it did: it is then
    /// planned without subjects and rendered with every change its options ask for (a
    /// redaction's faces still looked for), and never stored.
    var fallback: String?
    /// Whether the job makes a result (a crop), so that a cached one may answer it; a plan does not.
    var wantsResult = false
    /// Whether an image read for this job is identified by its content (a crop's is; a plan's or
    /// an analysis's only when its subjects may be cached or saved crops found under it).
    var identify = true

    init(input: ImageInput, rule: TargetRule?, options: FocalOptions, detectors: String, scopes: Set<DetectionScope> = [.crop]) {
        self.input = input
        self.rule = rule
        var options = options
        // stretch() crops nothing, so it detects nothing either (and no saved crop applies).
        if options.sizing.stretch { options.crop.detect = false }
        self.options = options
        self.detectors = detectors
        self.scopes = scopes
        location = input.location
        identity = FocalPipeline.givenIdentity(input)
    }

    /// Whether a saved crop could decide this job: a store, a detecting crop, a content identity.
    func mayHaveSavedCrop(_ pipeline: FocalPipeline) -> Bool {
        // A page or a turned image is not the image its crops were saved on.
        pipeline.overrides != nil && options.crop.needsDetection && identity?.contentID != nil && options.page == nil
            && (options.orient ?? 0) == 0
    }

    /// The identity its subjects are cached under: the page and turn asked for, of `identity`.
    var subjectIdentity: ImageIdentity? { identity?.viewed(page: options.page, turn: options.orient ?? 0) }

    /// The saved crop that decides this job, if one does.
    var foundSavedCrop: CropOverride? {
        if case let .found(saved) = savedCrop { saved } else { nil }
    }

    /// The crop options the frame is planned with: `frameCrop` once a saved crop is applied,
    /// else the options' own; inside `bounds` when `trim` or a relative crop gave them.
    var planCrop: CropOptions {
        var crop = frameCrop ?? options.crop
        if let bounds { crop.bounds = bounds }
        if fallback != nil { crop.detect = false }
        return crop
    }

    /// What the detectors found that a crop uses.
    var cropSubjects: [Subject] { subjects?[.crop] ?? [] }

    /// The key the result is filed under, once the identity is known and the saved crop settled
    /// (found, none, or not possible).
    func resultKey(_ pipeline: FocalPipeline) -> ResultKey? {
        guard let identity, let rule else { return nil }
        if case .notAsked = savedCrop, mayHaveSavedCrop(pipeline) { return nil }
        // Overlays are part of the key by their content, once identified.
        if !options.overlays.isEmpty, !overlaysIdentified { return nil }
        // A saved crop's bounds depend on the upscale limit as well (`SavedCropRule.crop`).
        let target = foundSavedCrop == nil ? rule.key : "\(rule.key) upscale \(pipeline.configuration.limits.maxUpscale)"
        return ResultKey(identity: identity, target: target, options: options, detectors: detectors)
    }
}
