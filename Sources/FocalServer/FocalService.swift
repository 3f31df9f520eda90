public import Focal
import FocalFetch
import FocalImaging
import Foundation
import Hummingbird
public import Logging
import Synchronization

/// The service's lifecycle and the parts its controllers share: the pipeline, the stores, the
/// connections and answers, the metrics. It starts the work done off the request path (the root's
/// index, readiness, memory given back, the database's notifications) and makes the controllers,
/// each with only what it needs (`controllers`). One per server; safe to share between requests.
public final class FocalService: Sendable {
    /// The settings.
    public let configuration: ServerConfiguration
    /// The pipeline every request runs on.
    public let pipeline: FocalPipeline
    /// The metrics `/metrics` serves.
    public let metrics: ServerMetrics
    /// Where the images are: the root, uploads, the shared store.
    let library: ImageLibrary
    let signer: URLSigner
    let authorization: Authorization
    /// Where saved crops live, behind their deadlines, breaker and cache.
    let savedCrops: SavedCropGateway
    /// The database replicas share, when there is one: it also holds uploads.
    let shared: PostgresOverrideStore?
    let logger: Logger
    /// Open connections and the memory their bodies hold.
    let connections: ConnectionRegistry
    /// The memory image answers hold while they are sent.
    let answers: AnswerMemory
    private let ready = Mutex(false)
    /// The last readiness check and when it ran (`readiness()`).
    let lastReadiness = Mutex<(at: ContinuousClock.Instant, value: Readiness)?>(nil)
    private let background = Mutex<[Task<Void, Never>]>([])
    private let temporaryData: String?

    /// Creates the service; models load in `prepare()`.
    /// - Throws: `ServerError` for a root or data folder that cannot be used.
    /// - Parameters:
    ///   - configuration: The settings.
    ///   - logger: Where request lines and start-up messages go.
    ///   - overrides: Where saved crops live; default an SQLite file in the data folder.
    public init(configuration: ServerConfiguration, logger: Logger, overrides: (any OverrideStore)? = nil) throws(ServerError) {
        self.configuration = configuration
        self.logger = logger
        let data = configuration.dataDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("focal-serve-\(UUID().uuidString)").path
        temporaryData = configuration.dataDirectory == nil ? data : nil
        let store: any OverrideStore
        if let overrides {
            store = overrides
            shared = overrides as? PostgresOverrideStore
        } else if let database = configuration.database {
            let postgres = try PostgresOverrideStore(url: database, logger: logger)
            (store, shared) = (postgres, postgres)
        } else {
            store = try SQLiteOverrideStore(path: data + "/overrides.sqlite")
            shared = nil
        }
        let savedCrops = SavedCropGateway(store: store, logger: logger)
        self.savedCrops = savedCrops
        let pipeline = FocalPipeline(configuration: configuration.pipeline, overrides: savedCrops)
        self.pipeline = pipeline
        metrics = ServerMetrics()
        let resolver = try SourceResolver(root: configuration.root, allowedBuckets: configuration.pipeline.storage?.allowedBuckets ?? [])
        let maxBytes = configuration.pipeline.limits.maxInputBytes
        // A bucket root: listed with ListObjectsV2, each object identified by its ETag and length.
        let objects = configuration.pipeline.storage.map { S3Client(settings: $0) }
        let indexing = resolver.bucket.flatMap { root in objects.map { Self.indexing(root, client: $0, pipeline: pipeline) } }
        // Identities are hashed on the work pool, behind the requests already there.
        let catalog = ImageCatalog(resolver: resolver, maxBytes: maxBytes, bucket: indexing) { path, size in
            try await pipeline.runNative { ImageCatalog.digest(path: path, limit: size) }
        }
        // Uploads shared by every replica: objects in the root bucket, else PostgreSQL's table.
        let sharedUploads: (any ImageStore)? =
            if let root = resolver.bucket, let objects { ObjectImageStore(client: objects, root: root, maxBytes: maxBytes) } else {
                shared.map { PostgresImageStore(database: $0, gateway: savedCrops) }
            }
        library = ImageLibrary(
            resolver: resolver, catalog: catalog, uploads: try FolderImageStore(folder: data + "/uploads"), shared: sharedUploads)
        signer = URLSigner(keys: configuration.keys)
        authorization = Authorization(token: configuration.token, keys: configuration.keys)
        connections = ConnectionRegistry(maxBodyMemory: configuration.requests.maxBodyMemory, logger: logger)
        answers = AnswerMemory(budget: configuration.requests.maxAnswerMemory)
    }

    /// How the catalog lists a bucket root (every page, up to its capacity) and identifies its objects.
    static func indexing(_ root: BucketRoot, client: S3Client, pipeline: FocalPipeline) -> ImageCatalog.BucketIndexing {
        ImageCatalog.BucketIndexing(
            list: { capacity in
                // Bounded in keys seen (uploads and other files too), not only in photos kept; a
                // store that repeats a continuation token is not followed round in a loop.
                var listed: [ImageCatalog.ListedObject] = [], token: String? = nil, seen = 0, tokens: Set<String> = []
                repeat {
                    let page = try await client.list(bucket: root.bucket, prefix: root.prefix, token: token)
                    seen += page.objects.count
                    for object in page.objects {
                        guard let relative = root.relative(object.key), SourceResolver.isPlainPath(relative),
                            let address = ObjectAddress(bucket: root.bucket, key: object.key)
                        else { continue }
                        listed.append(ImageCatalog.ListedObject(relative: relative, address: address, size: object.size, etag: object.etag))
                    }
                    token = page.next
                    if let next = token, !tokens.insert(next).inserted { break }
                } while token != nil && seen < capacity && !Task.isCancelled
                return Array(listed.prefix(capacity))
            },
            identify: { address, etag, size in try await pipeline.objects.contentID(of: address, etag: etag, size: size) })
    }

    deinit {
        background.withLock { tasks in for task in tasks { task.cancel() } }
        if let temporaryData { try? FileManager.default.removeItem(atPath: temporaryData) }
    }

    /// How often the root folder is listed again for the index of identities.
    static let rescanInterval: Duration = .seconds(30)
    /// How soon a root bucket whose listing failed is listed again.
    static let relistInterval: Duration = .seconds(5)

    /// Starts the work the service does off the request path: the index of the root's photos
    /// (now, then every `rescanInterval`), and giving memory back once a burst is over (checked
    /// every 2 s: when requests came and went, no job and no body is held now).
    func startBackgroundWork() {
        var tasks: [Task<Void, Never>] = []
        if configuration.root != nil {
            let catalog = library.catalog
            tasks.append(Task.detached(priority: .utility) {
                while !Task.isCancelled {
                    await catalog.refresh()
                    // A bucket that could not be listed is tried again soon: readiness waits on it.
                    try? await Task.sleep(for: catalog.listing.failure == nil ? FocalService.rescanInterval : FocalService.relistInterval)
                }
            })
        }
        if shared != nil {
            let savedCrops = savedCrops
            tasks.append(Task.detached(priority: .utility) { await savedCrops.listen() })
        }
        // Readiness, checked every second apart from the probes that read it.
        tasks.append(Task.detached(priority: .utility) { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self else { return }
                await self.refreshReadiness()
            }
        })
        let (pipeline, connections, metrics, logger) = (pipeline, connections, metrics, logger)
        tasks.append(Task.detached(priority: .utility) {
            var trimmedAt = -1
            var failedWrites = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                // Disk cache writes that failed since the last look: one line, however many.
                let failures = pipeline.statistics.diskWriteFailures
                if failures > failedWrites {
                    logger.warning(
                        "disk cache writes failed", metadata: ["failures": .stringConvertible(failures - failedWrites), "folder": .string(pipeline.configuration.diskCache?.folder ?? "")])
                    failedWrites = failures
                }
                let requests = metrics.requests
                guard requests.finished != trimmedAt, requests.inFlight == 0, pipeline.statistics.jobsInProgress == 0,
                    connections.bodyMemory == 0
                else { continue }
                trimmedAt = requests.finished
                MemoryTrim.trim()
            }
        })
        background.withLock { $0 = tasks }
    }

    /// Loads the models (by detecting on a tiny image), so that the first request does not pay
    /// for it and `/readyz` can tell; then marks the service ready.
    public func prepare() async {
        startBackgroundWork()
        do {
            if let shared { try await migrate(shared) }
            let probe = try RenderedImage(pixels: PixelBuffer(unchecked: 64, height: 48, bytes: [UInt8](repeating: 128, count: 64 * 48 * 3)))
                .encode(.png)
            _ = try await pipeline.analyze(.data(probe, name: "start-up probe"), scope: .everything)
            ready.withLock { $0 = true }
            logger.info(
                "ready",
                metadata: [
                    "models": .string(configuration.pipeline.modelsPath ?? "(searched)"),
                    "precision": .string(configuration.pipeline.precisionSummary),
                ])
        } catch {
            logger.error("not ready: models could not be loaded", metadata: ["error": .string((error as? any FocalError)?.detail ?? "\(error)")])
        }
        await refreshReadiness()
    }

    /// Migrates the shared database, waiting up to 30 s for it to accept connections.
    private func migrate(_ store: PostgresOverrideStore) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                try await store.migrate()
                return
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                logger.warning("database not ready; retrying", metadata: ["error": .string((error as? any FocalError)?.detail ?? "\(error)")])
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Whether the models are loaded and the shared database (if any) migrated. A full queue does
    /// not make a replica unready: it answers 429 for the excess, and a cache in front keeps
    /// sending each photo to the replica that already detected it.
    public var isReady: Bool { ready.withLock { $0 } }

    // MARK: - Controllers

    /// One controller per resource, each with only the parts it needs; `buildRouter` adds their
    /// routes (the images' catch-all last).
    var controllers: [any Controller] {
        let bodies = RequestBodies(maxJSONBytes: configuration.requests.maxJSONBytes, signedOnly: configuration.signedOnly, authorization: authorization)
        let (pipeline, metrics, connections, answers, savedCrops) = (pipeline, metrics, connections, answers, savedCrops)
        return [
            HealthController(
                // Held by the router for the life of the server: the service (its background work,
                // its temporary data folder) lives as long.
                configuration: configuration, metrics: metrics, readiness: { self.readiness() },
                refreshMetrics: { metrics.update(from: pipeline.statistics, connections: connections, answers: answers, savedCrops: savedCrops) }),
            PlanController(configuration: configuration, library: library, pipeline: pipeline, bodies: bodies),
            UploadController(configuration: configuration, library: library, pipeline: pipeline, bodies: bodies, answers: answers),
            SavedCropController(library: library, savedCrops: savedCrops, pipeline: pipeline, bodies: bodies, logger: logger),
            SigningController(configuration: configuration, signer: signer, resolver: library.resolver, bodies: bodies),
            PageController(configuration: configuration, assets: WebAssets.shared),
            ImageController(
                configuration: configuration, signer: signer, library: library, pipeline: pipeline, answers: answers, connections: connections,
                metrics: metrics),
        ]
    }
}
