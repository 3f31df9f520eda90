/// Counters a pipeline keeps, readable at any time.
public struct PipelineStatistics: Hashable, Sendable {
    /// All counts zero.
    public init() {}

    /// Crop requests received.
    public var requests = 0
    /// Requests answered from the memory cache.
    public var memoryHits = 0
    /// Memory cache lookups that found nothing.
    public var memoryMisses = 0
    /// Requests answered from the disk cache.
    public var diskHits = 0
    /// Disk cache lookups that found nothing (unreadable entries included).
    public var diskMisses = 0
    /// Jobs started (one per distinct request running at once).
    public var jobsStarted = 0
    /// Requests that joined a job already running for an identical request.
    public var jobsJoined = 0
    /// Jobs abandoned by every caller and stopped.
    public var jobsCancelled = 0
    /// Requests refused as overloaded (too many jobs, or the native queue full).
    public var refused = 0
    /// URLs fetched.
    public var downloads = 0
    /// Images whose detectors ran.
    public var detections = 0
    /// Images whose subjects came from the detection cache.
    public var detectionCacheHits = 0
    /// Proxies decoded for detectors.
    public var proxyDecodes = 0
    /// Crops decoded, resized and encoded.
    public var renders = 0
    /// Results that fell back to a centre crop or a placeholder.
    public var fallbacks = 0
    /// Saved-crop look-ups the store could not answer (`SavedCropsUnavailable`): crops made as
    /// if nothing were saved.
    public var savedCropsUnknown = 0
    /// Disk cache writes that failed (a full or read-only disk, a vanished folder).
    public var diskWriteFailures = 0
    /// Files named like disk cache entries that Focal could not have written (too large, not a
    /// regular file): never read.
    public var diskIgnored = 0
    /// Results held in the memory cache now.
    public var memoryEntries = 0
    /// Bytes held in the memory cache now.
    public var memoryBytes = 0
    /// Results in the disk cache as this pipeline knows them (0 without one, and while its folder
    /// is first being listed).
    public var diskEntries = 0
    /// Bytes in the disk cache as this pipeline knows them: the blocks its files take.
    public var diskBytes = 0
    /// Disk entries deleted because they could not be read or did not check out.
    public var diskDiscarded = 0
    /// Distinct jobs in progress now (decoding, detecting, encoding, or waiting to).
    public var jobsInProgress = 0
    /// Bytes the jobs in progress hold against `FocalConfiguration.memoryBudget` now.
    public var admittedBytes = 0
    /// Native tasks waiting for one of the pool's threads now.
    public var queueDepth = 0
}
