public import FocalCore
public import FocalDetection

/// One frame's plan: what a crop of that frame renders.
public struct FramePlan: Sendable {
    /// The frame, resolved against the image's size.
    public let target: CropTarget
    /// The plan a crop of this frame renders.
    public let plan: CropPlan
    /// The saved crop that decided it, if one did.
    public let savedCrop: CropOverride?
}

/// The plans of many frames of one image, from one open and one detection.
public struct FramePlans: Sendable {
    /// The image and the subjects listed (what a crop uses, or everything found, as asked).
    public let analysis: Analysis
    /// One plan per frame asked for, in order.
    public let frames: [FramePlan]
    /// Whether the store of saved crops could not answer, so that a saved crop may have been
    /// missed (`SavedCropsUnavailable`).
    public var savedCropsUnknown = false
}

extension FocalPipeline {
    /// Plans many frames of one image exactly as `crop` renders them, saved crops and their
    /// `maxUpscale` rule included, after one open and one detection. `meta/`, `/v1/plan` and the
    /// command line's plans all come from here, and `crop` makes the same choices, so they agree.
    ///
    /// - Parameters:
    ///   - input: A file, bytes or an http(s) URL, optionally with a cache name or content ID.
    ///   - frames: The frames, fixed or derived from the image's size (or its `bounds`).
    ///   - options: Crop and detection options (encoding options are not used).
    ///   - savedCrops: Whether a saved crop decides the frames of its aspect; default true.
    ///   - listing: Which subjects `analysis` lists: `.crop` (default) those a crop uses, or
    ///     `.everything` every detector's (found in the same detection).
    /// - Throws: `PlanningError` for invalid options or frames; what `analyze` throws.
    public func plan(
        _ input: ImageInput, frames: [TargetRule], options: FocalOptions = .default, savedCrops: Bool = true,
        listing: DetectionScope = .crop
    ) async throws -> FramePlans {
        try options.validate()
        for case let target? in frames.map(\.fixed) {
            try target.validate()
            if case let .size(width, height) = target { try configuration.limits.check(output: PixelSize(width: width, height: height)) }
        }
        if Admission.current != nil {
            return try await planAdmitted(input, frames: frames, options: options, savedCrops: savedCrops, listing: listing)
        }
        return try await admission.run {
            try await planAdmitted(input, frames: frames, options: options, savedCrops: savedCrops, listing: listing)
        }
    }

    /// The shared steps once (`planSteps`: fetch, open, detect for every scope), then each frame
    /// by the crop's own steps (`frameSteps`: its target, its saved crop, its plan).
    private func planAdmitted(
        _ input: ImageInput, frames: [TargetRule], options: FocalOptions, savedCrops: Bool, listing: DetectionScope
    ) async throws -> FramePlans {
        var shared = CropJob(input: input, rule: nil, options: options, detectors: detectorSignature(options.accuracy), scopes: [.crop, listing])
        shared.identify = options.crop.needsDetection
        try await run(&shared, Self.planSteps)
        guard let image = shared.image else { throw ImagingError(.internalFailure, "the plan opened no image", source: input.description) }
        var plans: [FramePlan] = []
        var unknown = false
        for rule in frames {
            var frame = shared
            frame.rule = rule
            if !savedCrops { frame.savedCrop = .none }
            try await run(&frame, Self.frameSteps)
            guard let target = frame.target, let plan = frame.plan else {
                throw ImagingError(.internalFailure, "a frame was not planned", source: input.description)
            }
            if case .unknown = frame.savedCrop { unknown = true }
            plans.append(FramePlan(target: target, plan: plan, savedCrop: frame.foundSavedCrop))
        }
        var analysis = Analysis(image: image, subjects: shared.subjects?[listing] ?? [])
        analysis.contentID = shared.identity?.contentID
        var answer = FramePlans(analysis: analysis, frames: plans)
        answer.savedCropsUnknown = unknown
        return answer
    }
}
