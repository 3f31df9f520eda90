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

    private func planAdmitted(
        _ input: ImageInput, frames: [TargetRule], options: FocalOptions, savedCrops: Bool, listing: DetectionScope
    ) async throws -> FramePlans {
        let detect = options.crop.needsDetection
        let (location, identity) = try await fetched(input, identity: Self.givenIdentity(input), identify: detect)
        let image = try await open(location)
        var found: [DetectionScope: [Subject]] = [:]
        if detect {
            let copy = workingCopy(of: image, accuracy: options.accuracy, outputLongSide: nil)
            found = try await subjects(of: copy, identity: identity, accuracy: options.accuracy, scopes: [.crop, listing])
        }
        let used = Analysis(image: image, subjects: found[.crop] ?? [])
        var plans: [FramePlan] = []
        var unknown = false
        for rule in frames {
            let target = try rule.target(for: Self.ruleSize(image, options.crop))
            if case let .size(width, height) = target { try image.checkOutput(PixelSize(width: width, height: height)) }
            var frameOptions = options
            var saved: CropOverride?
            if savedCrops, let identity {
                (frameOptions, saved) = try await applyingOverride(options, identity: identity, target: target)
                unknown = unknown || frameOptions.savedCropsUnknown
            }
            frameOptions.crop = savedCropApplied(frameOptions, target: target, imageSize: image.size)
            let plan = try used.plan(target, options: frameOptions.crop)
            if case .aspect = target { try configuration.limits.check(output: plan.outputSize) }
            plans.append(FramePlan(target: target, plan: plan, savedCrop: saved))
        }
        var analysis = Analysis(image: image, subjects: found[listing] ?? [])
        analysis.contentID = identity?.contentID
        var answer = FramePlans(analysis: analysis, frames: plans)
        answer.savedCropsUnknown = unknown
        return answer
    }
}
