public import Foundation
public import FocalRuntime

/// A finished crop: the encoded bytes, the plan behind them, and where they came from.
public struct CropResult: Sendable {
    /// Where a result came from.
    public enum Origin: Hashable, Sendable {
        /// Computed for this request (possibly shared with identical requests running at once).
        case fresh
        /// The pipeline's memory cache.
        case memoryCache
        /// The disk cache folder.
        case diskCache
        /// A centre crop, because detection failed; `reason` is the detection error. Not cached.
        case centerCropFallback(reason: String)
        /// The caller's placeholder, because the image failed; `reason` is the error. Not cached.
        case placeholder(reason: String)

        /// A short name: `fresh`, `memory`, `disk`, `center-fallback` or `placeholder`.
        public var name: String {
            switch self {
            case .fresh: "fresh"
            case .memoryCache: "memory"
            case .diskCache: "disk"
            case .centerCropFallback: "center-fallback"
            case .placeholder: "placeholder"
            }
        }
    }

    /// The encoded output.
    public var data: Data
    /// The output's encoding.
    public var format: ImageFormat
    /// Where the crop is and why.
    public var plan: CropPlan
    /// Every subject detected, used or not.
    public var detected: [Subject]
    /// Where this result came from; default `.fresh`.
    public var origin: Origin
    /// A digest of everything the result depends on (the image's identity and every option), the
    /// same for every identical request: an HTTP ETag. Nil when the input had no identity or the
    /// result is a fallback.
    public var key: String?
    /// The revision of the saved crop (a person's override) that decided this result, if one did.
    public var overrideRevision: Int?
    /// The SHA-256 of the image's bytes (hex), when the image was identified by its content.
    public var contentID: String?
    /// Whether the store of saved crops could not answer, so that a saved crop may have been
    /// missed (`SavedCropsUnavailable`); such a result is cached nowhere.
    public var savedCropsUnknown = false
    /// Where this request's time went, step by step, in the order the steps first ran: the
    /// pipeline's steps (`fetch`, `open`, `detect`, `plan`, `render`, ...) and the parts
    /// timed inside them (`decode`, `proxy`, `detect-<stage>`, `infer-<network>`, `encode`), each
    /// without the parts inside it. A cached result's are its lookup's; a request that joined an
    /// identical one in flight gets that job's. Empty in a result made with `init` rather than by
    /// `FocalPipeline`.
    public var timings: [StepTiming] = []
    /// Whether this request joined an identical one already in flight, whose result and timings
    /// it shares (so that a job's steps are counted once, by the request that started it).
    public var joinedInFlight = false

    /// Creates a result.
    public init(data: Data, format: ImageFormat, plan: CropPlan, detected: [Subject], origin: Origin = .fresh, key: String? = nil) {
        self.data = data
        self.format = format
        self.plan = plan
        self.detected = detected
        self.origin = origin
        self.key = key
    }

    /// The same result with the content ID an identity (`sha256:<hex>`) carries.
    func identified(_ identity: ImageIdentity) -> CropResult {
        guard let id = identity.contentID else { return self }
        var copy = self
        copy.contentID = id
        return copy
    }

    /// The same result, marked as made without knowing the saved crops when `unknown` (a cached
    /// result found while the store could not say whether one applies).
    func degraded(_ unknown: Bool) -> CropResult {
        guard unknown else { return self }
        var copy = self
        copy.savedCropsUnknown = true
        return copy
    }

    /// The same result from another origin.
    func from(_ origin: Origin) -> CropResult {
        var copy = self
        copy.origin = origin
        return copy
    }

    /// Bytes this result holds in memory, roughly: the encoded data plus its description.
    var cost: Int { data.count + 256 + 64 * (plan.subjects.count + detected.count) }
}
