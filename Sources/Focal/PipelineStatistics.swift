/// Counters a pipeline keeps, readable at any time.
public struct PipelineStatistics: Hashable, Sendable {
    /// Images whose detectors ran.
    public var detections = 0
    /// Images whose subjects came from the detection cache.
    public var detectionCacheHits = 0
    /// Proxies decoded for detectors.
    public var proxyDecodes = 0
}
