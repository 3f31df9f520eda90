import Crypto
public import Focal
import FocalImaging
import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
public import Logging
import Synchronization

/// The service behind the routes: resolves sources, checks signatures, runs the pipeline, and
/// turns results into HTTP responses. One per server; safe to share between requests.
public final class FocalService: Sendable {
    /// The settings.
    public let configuration: ServerConfiguration
    /// The pipeline every request runs on.
    public let pipeline: FocalPipeline
    /// The metrics `/metrics` serves.
    public let metrics: ServerMetrics
    let resolver: SourceResolver
    let catalog: ImageCatalog
    let uploads: FolderImageStore
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
        uploads = try FolderImageStore(folder: data + "/uploads")
        metrics = ServerMetrics()
        resolver = try SourceResolver(root: configuration.root)
        // Identities are hashed on the work pool, behind the requests already there.
        catalog = ImageCatalog(resolver: resolver, maxBytes: configuration.pipeline.limits.maxInputBytes) { path, size in
            try await pipeline.runNative { ImageCatalog.digest(path: path, limit: size) }
        }
        signer = URLSigner(keys: configuration.keys)
        authorization = Authorization(token: configuration.token, keys: configuration.keys)
        connections = ConnectionRegistry(maxBodyMemory: configuration.requests.maxBodyMemory, logger: logger)
        answers = AnswerMemory(budget: configuration.requests.maxAnswerMemory)
    }

    deinit {
        background.withLock { tasks in for task in tasks { task.cancel() } }
        if let temporaryData { try? FileManager.default.removeItem(atPath: temporaryData) }
    }

    /// How often the root folder is listed again for the index of identities.
    static let rescanInterval: Duration = .seconds(30)

    /// Starts the work the service does off the request path: the index of the root's photos
    /// (now, then every `rescanInterval`), and giving memory back once a burst is over (checked
    /// every 2 s: when requests came and went, no job and no body is held now).
    func startBackgroundWork() {
        var tasks: [Task<Void, Never>] = []
        if configuration.root != nil {
            let catalog = catalog
            tasks.append(Task.detached(priority: .utility) {
                while !Task.isCancelled {
                    await catalog.refresh()
                    try? await Task.sleep(for: FocalService.rescanInterval)
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
            logger.info("ready", metadata: ["models": .string(configuration.pipeline.modelsPath ?? "(searched)")])
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

    // MARK: - Images (thumbor's grammar)

    /// Answers a thumbor-style image or `meta/` URL.
    func image(_ request: Request, context: FocalRequestContext) async throws -> Response {
        let url = try ThumborURL(path: request.uri.path)
        if let signature = url.signature {
            guard signer.verify(signature, path: url.signedPath) else {
                throw ServerError(
                    .requestBadSignature,
                    signer.keys.isEmpty ? "signed URLs cannot be verified: this service has no key" : "the URL's signature is not valid")
            }
        } else if !configuration.allowUnsafe {
            throw ServerError(.requestUnsafeRefused, "unsafe URLs are not served here; sign the URL")
        }
        var imageRequest = try ImageRequest(url)
        // Answers hold their whole budget already: refused before any work, not after a render,
        // and the clients stalled the longest lose their answers so that later ones fit.
        if answers.isFull {
            metrics.refused("answers_full")
            connections.evictStalled(Self.stalledPerRefusal)
            throw ServerError(.serverAnswersFull, "too many large answers are being sent now; try again shortly")
        }
        let source = try resolver.resolve(url.image)
        let (input, known) = try await input(for: source)
        let vary = negotiateFormat(&imageRequest, accept: request.headers[.accept])
        let (rule, options) = (imageRequest.rule, imageRequest.options)
        if url.meta {
            let (body, id, degraded) = try await RequestTimeout.run(configuration.requestTimeout) { [self] in
                let (document, id, degraded) = try await meta(url: url, input: input, id: known, rule: rule, options: options)
                return (DocumentEncoding.data(document), id, degraded)
            }
            if known == nil, let id { learn(id, for: source) }
            var headers: HTTPFields = [.cacheControl: "public, max-age=0, must-revalidate, s-maxage=\(configuration.maxAge)"]
            if let id { headers[.xkey] = id }
            if degraded {
                headers[.focalDegraded] = Self.savedCropsDegraded
                headers[.cacheControl] = Self.degradedCaching
            }
            return json(data: body, headers: headers)
        }
        let result = try await RequestTimeout.run(configuration.requestTimeout) { [self] in
            try await pipeline.crop(input, sizedBy: rule, options: options)
        }
        if known == nil, let id = result.contentID { learn(id, for: source) }
        return try imageResponse(
            result, id: known, request: request, vary: vary, smart: options.crop.needsDetection, eventLoop: context.eventLoop)
    }

    /// Fills in the automatic format from the request's `Accept` when the URL asks for it
    /// (`format(auto)`) or names no format on a server with `--auto-format` (or `--auto-webp`).
    /// - Returns: Whether the answer depends on `Accept` (then it carries `Vary: Accept`).
    func negotiateFormat(_ imageRequest: inout ImageRequest, accept: String?) -> Bool {
        let accepted = AcceptedFormats(acceptHeader: accept)
        if imageRequest.options.automaticFormat != nil || (configuration.autoFormat && !imageRequest.formatChosen) {
            imageRequest.options.format = nil
            imageRequest.options.automaticFormat = accepted
            return true
        }
        guard configuration.autoWebP, !imageRequest.formatChosen else { return false }
        if accepted.contains(.webp) { imageRequest.options.format = .webp }
        return true
    }

    /// Tells the catalog the identity a request found for a file under the root.
    func learn(_ id: String, for source: ImageSource) {
        guard case let .file(path, relative) = source, let stamp = ImageCatalog.stamp(path) else { return }
        catalog.remember(path: path, relative: relative, stamp: stamp, id: id)
    }

    /// The pipeline input for a source, and the image's identity when it is known without any
    /// work: nothing here reads, lists or hashes (an unidentified file is identified by content
    /// inside its admitted job).
    func input(for source: ImageSource) async throws -> (ImageInput, String?) {
        switch source {
        case let .file(path, relative):
            guard let stamp = ImageCatalog.stamp(path) else { throw ServerError(.inputNotFound, "no image \(relative.excerpt()) here") }
            let id = catalog.knownIdentity(path: path, stamp: stamp)
            return (.file(path, contentID: id), id)
        case let .url(url):
            return (.url(url), nil)
        case let .upload(id):
            let path = uploads.folder + "/" + id
            if FileManager.default.fileExists(atPath: path) { return (.file(path, contentID: id), id) }
            // A photo under the root, by the identity the catalog's index knows (kept up to date
            // in the background: a miss is a look-up, never a scan).
            if let relative = catalog.path(for: id), case let .file(path, _) = try resolver.file(relative) {
                return (.file(path, contentID: id), id)
            }
            // Uploaded through another replica: from the shared database (asked last, so that a
            // database away costs only these), kept here from then on.
            if let shared, let data = try await savedCrops.call(savedCrops.writeDeadline, counted: false, { try await shared.upload(id) }) {
                try await uploads.put(data, id: id)
                return (.file(path, contentID: id), id)
            }
            throw ServerError(.inputNotFound, "no image with id \(id)")
        }
    }

    /// An image response: the bytes, their type, validators and caching headers; 304 when the
    /// client's `If-None-Match` names this result. The bytes are streamed as the client reads
    /// them, reserved on the answer memory until they are sent (`AnswerMemory`).
    /// - Throws: `ServerError` (`server.answers_full`) when the answers being sent hold their
    ///   whole budget already.
    func imageResponse(
        _ result: CropResult, id: String?, request: Request, vary: Bool, smart: Bool, eventLoop: any EventLoop
    ) throws(ServerError) -> Response {
        let tag = "\"" + String((result.key ?? Self.hex(SHA256.hash(data: result.data))).prefix(32)) + "\""
        // A subject-aware crop changes when a person saves a crop for its aspect: browsers check
        // back every time (a 304 when unchanged); shared caches keep it and are purged by tag.
        let caching = smart
            ? "public, max-age=0, must-revalidate, s-maxage=\(configuration.maxAge)" : "public, max-age=\(configuration.maxAge)"
        var headers: HTTPFields = [
            .contentType: result.format.mediaType, .eTag: tag, .cacheControl: caching,
            .focalStrategy: result.plan.strategy.rawValue, .focalOrigin: result.origin.name,
            .contentSecurityPolicy: ImageHeaders.contentSecurityPolicy,
        ]
        if vary { headers[.vary] = "Accept" }
        if result.savedCropsUnknown {
            headers[.focalDegraded] = Self.savedCropsDegraded
            headers[.cacheControl] = Self.degradedCaching
        }
        // The identity of a URL source is known once it has been fetched.
        if let id = id ?? result.contentID { headers[.xkey] = id }
        headers[.focalPlan] = Self.planHeader(result)
        if let match = request.headers[.ifNoneMatch],
            match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag })
        {
            return Response(status: .notModified, headers: headers)
        }
        guard let hold = answers.hold(result.data) else {
            metrics.refused("answers_full")
            connections.evictStalled(Self.stalledPerRefusal)
            throw ServerError(.serverAnswersFull, "too many large answers are being sent now; try again shortly")
        }
        headers[.contentLength] = String(result.data.count)
        return Response(status: .ok, headers: headers, body: AnswerBody.make(hold, eventLoop: eventLoop))
    }

    /// thumbor's `meta/` JSON, with Focal's own object beside it: the plan the image URL renders
    /// (one library call plans it, saved crop included) and every subject every detector finds,
    /// from one open and one detection.
    /// - Returns: The document, the image's identity, and whether the saved crops could not be read.
    func meta(url: ThumborURL, input: ImageInput, id known: String?, rule: TargetRule, options: FocalOptions) async throws
        -> (MetaDocument, String?, Bool)
    {
        let plans = try await pipeline.plan(input, frames: [rule], options: options, listing: .everything)
        let id = known ?? plans.analysis.contentID
        guard let frame = plans.frames.first else { throw ServerError(.internalFailure, "meta planned no frame") }
        return (MetaDocument(url: url, analysis: plans.analysis, frame: frame, id: id, flip: options.flip), id, plans.savedCropsUnknown)
    }

    /// How many stalled readers (clients that took nothing of their answers for a second) lose
    /// their connections each time the answer memory refuses an answer.
    static let stalledPerRefusal = 4

    /// `X-Focal-Degraded` when the saved crops could not be read: the answer is what would be
    /// made were nothing saved.
    static let savedCropsDegraded = "saved-crops"
    /// The caching of a degraded answer: a cache in front keeps it 5 s at most.
    static let degradedCaching = "public, max-age=0, must-revalidate, s-maxage=5"

    /// The plan in one header, for `<focal-img>`'s `focal-load` event: strategy, crop and image
    /// size in pixels, the subjects used as `[kind, x, y, width, height, confidence]`, and the
    /// override's revision when a saved crop decided it.
    static func planHeader(_ result: CropResult) -> String {
        DocumentEncoding.text(PlanHeaderDocument(result))
    }

    /// What the web page needs to know about this service.
    var clientConfiguration: ConfigDocument { ConfigDocument(configuration) }

    /// `POST /v1/sign` (token): signs `{"paths": [...]}` with the first key, for a page that
    /// cannot use unsafe URLs.
    func sign(_ request: Request) async throws -> Response {
        try await signPaths(request) { _ throws(ServerError) in }
    }

    /// Reads `{"paths": [...]}` (at most `maxSignPaths`) and answers `{"urls": [...]}`: each path,
    /// without a leading `/`, that `check` lets through, behind its signature.
    func signPaths(_ request: Request, check: (String) throws(ServerError) -> Void) async throws -> Response {
        struct Body: Decodable { var paths: [String] }
        let body = try await decodeBody(Body.self, from: request)
        let most = configuration.requests.maxSignPaths
        guard body.paths.count <= most else { throw ServerError.invalid("sign at most \(most) paths at once") }
        let urls = try body.paths.map { path throws(ServerError) -> String in
            let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
            try check(trimmed)
            guard let signature = signer.sign(trimmed) else { throw ServerError(.requestInvalid, "this service has no key to sign with") }
            return "/" + signature + "/" + trimmed
        }
        return json(["urls": urls])
    }

    // MARK: - JSON

    /// A JSON response of a document (`DocumentEncoding`).
    func json(_ document: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        json(data: DocumentEncoding.data(document), status: status, headers: headers)
    }

    /// A JSON response from encoded bytes.
    func json(data: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        if headers[.cacheControl] == nil { headers[.cacheControl] = "no-store" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String { digest.map { String(format: "%02x", $0) }.joined() }
}

extension HTTPField.Name {
    /// The image's identity, for tag-based purges in a cache in front (Varnish's xkey).
    static var xkey: Self { Self("xkey")! }
    /// The plan, as compact JSON.
    static var focalPlan: Self { Self("X-Focal-Plan")! }
    /// What the answer had to do without (`saved-crops`: the saved crops could not be read).
    static var focalDegraded: Self { Self("X-Focal-Degraded")! }
}
