import Focal
import Metrics
public import Prometheus
import Synchronization

/// The service's metrics, in a Prometheus registry of its own, served at `/metrics`:
/// requests by route and status, durations by route, jobs in progress, queue depth, cache hits
/// and misses by layer, detections, renders, refusals, fetches. Recorded with swift-metrics and
/// exported by swift-prometheus.
public final class ServerMetrics: Sendable {
    /// The registry `/metrics` prints.
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let seen = Mutex(PipelineStatistics())
    private let jobs: Metrics.Gauge
    private let queue: Metrics.Gauge
    private let inFlight: Metrics.Gauge
    private let connections: Metrics.Gauge
    private let bodyMemory: Metrics.Gauge
    private let admitted: Metrics.Gauge
    private let answerMemory: Metrics.Gauge
    private let savedCropsOpen: Metrics.Gauge
    private let closedSeen = Mutex<[String: Int]>([:])
    private let requestsInFlight = Mutex(0)
    private let requestsFinished = Mutex(0)

    /// Requests finished so far, and requests in flight now.
    var requests: (finished: Int, inFlight: Int) { (requestsFinished.withLock { $0 }, requestsInFlight.withLock { $0 }) }

    /// Creates the metrics.
    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
        jobs = Metrics.Gauge(label: "focal_jobs_in_progress", factory: factory)
        queue = Metrics.Gauge(label: "focal_queue_depth", factory: factory)
        inFlight = Metrics.Gauge(label: "focal_http_requests_in_flight", factory: factory)
        connections = Metrics.Gauge(label: "focal_http_connections_open", factory: factory)
        bodyMemory = Metrics.Gauge(label: "focal_http_body_bytes", factory: factory)
        admitted = Metrics.Gauge(label: "focal_jobs_memory_bytes", factory: factory)
        answerMemory = Metrics.Gauge(label: "focal_http_answer_bytes", factory: factory)
        savedCropsOpen = Metrics.Gauge(label: "focal_saved_crops_breaker_open", factory: factory)
        // The version serving, as Prometheus's build-info idiom: a gauge of 1 labelled with it.
        Metrics.Gauge(label: "focal_build_info", dimensions: [("version", FocalVersion.string)], factory: factory).record(1)
    }

    /// Counts a request that started.
    func started() {
        inFlight.record(requestsInFlight.withLock { $0 += 1; return $0 })
    }

    /// Records a finished request: its route, status and duration.
    func finished(route: String, status: Int, duration: Duration) {
        inFlight.record(requestsInFlight.withLock { $0 -= 1; return $0 })
        requestsFinished.withLock { $0 += 1 }
        Metrics.Counter(label: "focal_http_requests_total", dimensions: [("route", route), ("status", String(status))], factory: factory)
            .increment()
        Metrics.Timer(label: "focal_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(Self.nanoseconds(duration))
    }

    /// Records the time of each step of a crop made for a request (`focal_step_duration_seconds`,
    /// by `step`: the names of `CropResult.timings`, a fixed set).
    func steps(_ timings: [StepTiming]) {
        for timing in timings {
            Metrics.Timer(label: "focal_step_duration_seconds", dimensions: [("step", timing.name)], factory: factory)
                .recordNanoseconds(Self.nanoseconds(timing.duration))
        }
    }

    /// Brings the pipeline's counters into the registry (the increase since the last call), and
    /// its gauges; called before each scrape.
    func update(
        from statistics: PipelineStatistics, connections registry: ConnectionRegistry? = nil, answers: AnswerMemory? = nil,
        savedCrops: SavedCropGateway? = nil
    ) {
        if let answers { answerMemory.record(answers.usage.bytes) }
        if let savedCrops { savedCropsOpen.record(savedCrops.breaker.current == .closed ? 0 : 1) }
        if let registry {
            connections.record(registry.open)
            bodyMemory.record(registry.bodyMemory)
            let closed = registry.closedEarly
            let before = closedSeen.withLock { old in
                defer { old = closed }
                return old
            }
            for (reason, count) in closed {
                Metrics.Counter(label: "focal_connections_closed_early_total", dimensions: [("reason", reason)], factory: factory)
                    .increment(by: max(0, count - before[reason, default: 0]))
            }
        }
        admitted.record(statistics.admittedBytes)
        let before = seen.withLock { old in
            defer { old = statistics }
            return old
        }
        func count(_ label: String, _ dimensions: [(String, String)] = [], _ now: Int, _ then: Int) {
            Metrics.Counter(label: label, dimensions: dimensions, factory: factory).increment(by: max(0, now - then))
        }
        count("focal_cache_hits_total", [("layer", "memory")], statistics.memoryHits, before.memoryHits)
        count("focal_cache_misses_total", [("layer", "memory")], statistics.memoryMisses, before.memoryMisses)
        count("focal_cache_hits_total", [("layer", "disk")], statistics.diskHits, before.diskHits)
        count("focal_cache_misses_total", [("layer", "disk")], statistics.diskMisses, before.diskMisses)
        count("focal_cache_hits_total", [("layer", "detection")], statistics.detectionCacheHits, before.detectionCacheHits)
        count("focal_detections_total", [], statistics.detections, before.detections)
        count("focal_renders_total", [], statistics.renders, before.renders)
        count("focal_decodes_total", [], statistics.proxyDecodes, before.proxyDecodes)
        count("focal_fetches_total", [], statistics.downloads, before.downloads)
        count("focal_jobs_started_total", [], statistics.jobsStarted, before.jobsStarted)
        count("focal_jobs_joined_total", [], statistics.jobsJoined, before.jobsJoined)
        count("focal_refusals_total", [("reason", "overloaded")], statistics.refused, before.refused)
        count("focal_degraded_total", [("what", "saved_crops")], statistics.savedCropsUnknown, before.savedCropsUnknown)
        count("focal_cache_write_failures_total", [("layer", "disk")], statistics.diskWriteFailures, before.diskWriteFailures)
        count("focal_cache_ignored_total", [("layer", "disk")], statistics.diskIgnored, before.diskIgnored)
        jobs.record(statistics.jobsInProgress)
        queue.record(statistics.queueDepth)
    }

    /// A refusal the service made itself (timeouts, limits), by reason.
    func refused(_ reason: String) {
        Metrics.Counter(label: "focal_refusals_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// The registry in Prometheus's text format.
    public func exposition() -> String { registry.emitToString() }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }
}
