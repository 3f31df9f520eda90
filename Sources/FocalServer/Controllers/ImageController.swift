import Crypto
import Focal
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Images and `meta/` in thumbor's URL grammar: `/{signature|unsafe}/[meta/]...`. Checks the
/// signature, resolves the source, negotiates the format, runs the pipeline within the request
/// timeout, and answers the bytes (streamed, on the answer memory) or thumbor's JSON.
struct ImageController: Controller {
    let configuration: ServerConfiguration
    let signer: URLSigner
    let library: ImageLibrary
    let pipeline: FocalPipeline
    let answers: AnswerMemory
    let connections: ConnectionRegistry
    let metrics: ServerMetrics

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        // Everything the other controllers do not answer is an image or meta/ URL in thumbor's
        // grammar (one route: Hummingbird lets no route share a segment with a catch-all).
        routes.get("**") { request, context in try await answer(request, context: context) }
    }

    /// The size the URL asks for, for a source made at it (`color:`): a side left out or 0 takes
    /// the other's; nil when it gives neither.
    static func madeSize(_ url: ThumborURL) -> PixelSize? {
        func pixels(_ side: ThumborURL.Side) -> Int? { if case let .pixels(n) = side, n != 0, n != .min { abs(n) } else { nil } }
        guard let side = pixels(url.width) ?? pixels(url.height) else { return nil }
        return PixelSize(width: pixels(url.width) ?? side, height: pixels(url.height) ?? side)
    }

    /// A permanent redirect (308, the method kept) to `path`, the query as sent; cached like an
    /// image (a year), with a JSON body naming where to go.
    static func redirect(to path: String, query: String?) -> Response {
        let location = path + (query.map { $0.isEmpty ? "" : "?" + $0 } ?? "")
        struct Moved: Encodable { let location: String }
        return JSONAnswer.make(
            Moved(location: location), status: .permanentRedirect,
            headers: [.location: location, .cacheControl: "public, max-age=31536000, immutable"])
    }

    /// Under `--presets-only`: `url` must use a preset, and give no filter beside it but
    /// `allowed` (`--preset-filter`).
    /// - Throws: `ServerError` (`request.preset_required`, 403) naming what is refused.
    static func checkPresetsOnly(_ url: ThumborURL, allowed: Set<String>) throws(ServerError) {
        guard url.filters.contains(where: { $0.name == "preset" }) else {
            throw ServerError(.requestPresetRequired, "this server serves preset URLs only: write /unsafe/filters:preset(NAME)/IMAGE")
        }
        if let other = url.filters.first(where: { $0.name != "preset" && !allowed.contains($0.name) }) {
            let beside = allowed.sorted().joined(separator: ", ")
            throw ServerError(
                .requestPresetRequired, "this server serves preset URLs only: \(other.name.prefix(40))() is not allowed beside a preset (\(beside.isEmpty ? "nothing is" : beside + " are"))")
        }
    }

    /// Answers a thumbor-style image or `meta/` URL.
    func answer(_ request: Request, context: FocalRequestContext) async throws -> Response {
        let written = try ThumborURL(path: request.uri.path)
        if let signature = written.signature {
            guard signer.verify(signature, path: written.signedPath) else {
                throw ServerError(
                    .requestBadSignature,
                    signer.keys.isEmpty ? "signed URLs cannot be verified: this service has no key" : "the URL's signature is not valid")
            }
        } else if !configuration.allowUnsafe {
            throw ServerError(.requestUnsafeRefused, "unsafe URLs are not served here; sign the URL")
        }
        // A preset is read as the options and filters it stands for, after the signature (which
        // covers the URL as written) and before everything else: planning, keys, caches.
        let expanded = try Preset.expand(written, presets: configuration.presets)
        if configuration.presetsOnly { try Self.checkPresetsOnly(written, allowed: configuration.presetFilters) }
        let url = expanded ?? written
        var imageRequest = try ImageRequest(url)
        // An unsafe URL in another spelling thumbor or imagor accepts: a permanent redirect to the
        // one spelling rendered and cached (a cache in front keeps one image for all of them). A
        // preset's URL is its own spelling: its result is keyed by what it expands to.
        if expanded == nil, url.signature == nil, imageRequest.canonicalPath != url.signedPath {
            return Self.redirect(to: "/unsafe/" + imageRequest.canonicalPath, query: request.uri.query)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        if let expires = imageRequest.expires, now >= expires {
            throw ServerError(.requestExpired, "this URL expired (expire(\(expires)) has passed)")
        }
        // A forced redaction, whatever the URL (signed or not) asks.
        imageRequest.options.redaction = Redaction.enforcing(configuration.redact, over: imageRequest.options.redaction)
        // Answers hold their whole budget already: refused before any work, not after a render,
        // and the clients stalled the longest lose their answers so that later ones fit.
        if answers.isFull { throw answersFull() }
        let source = try library.resolver.resolve(url.source, size: Self.madeSize(url), limits: pipeline.configuration.limits)
        let (input, known) = try await library.input(for: source)
        // An overlay's image is resolved as the image is: under the root, or an allowed source.
        for (slot, overlay) in imageRequest.options.overlays {
            guard !BlankImage.names(overlay) else {
                throw ServerError.invalid("a color: source is a blank image at the output's size: only an image URL's own image can be one")
            }
            imageRequest.options.overlayInputs[slot] = try await library.input(for: library.resolver.resolve(overlay)).0
        }
        let vary = negotiateFormat(&imageRequest, accept: request.headers[.accept])
        let (rule, options) = (imageRequest.rule, imageRequest.options)
        if url.meta {
            let (body, id, degraded) = try await RequestTimeout.run(configuration.requestTimeout) { [self] in
                let (document, id, degraded) = try await meta(url: url, input: input, id: known, rule: rule, options: options)
                return (DocumentEncoding.data(document), id, degraded)
            }
            if known == nil, let id { library.learn(id, for: source) }
            var headers: HTTPFields = [.cacheControl: "public, max-age=0, must-revalidate, s-maxage=\(configuration.maxAge)"]
            if let id { headers[.xkey] = id }
            if degraded {
                headers[.focalDegraded] = Self.savedCropsDegraded
                headers[.cacheControl] = Self.degradedCaching
            }
            return JSONAnswer.make(data: body, headers: headers)
        }
        let result = try await RequestTimeout.run(configuration.requestTimeout) { [pipeline] in
            try await pipeline.crop(input, sizedBy: rule, options: options)
        }
        if known == nil, let id = result.contentID { library.learn(id, for: source) }
        var response = try imageResponse(result, id: known, request: request, vary: vary, smart: options.crop.needsDetection, eventLoop: context.eventLoop)
        Self.deliver(&response.headers, imageRequest, now: now, image: url.source, format: result.format)
        return response
    }

    /// The URL's own delivery filters on an image answer: `max_age(N)` as its `Cache-Control`,
    /// `expire(MS)` capping every cache's lifetime at the time left, `attachment(NAME)` as a
    /// `Content-Disposition` download (named as given, else after the image and its format).
    static func deliver(_ headers: inout HTTPFields, _ imageRequest: ImageRequest, now: Int64, image: String, format: ImageFormat) {
        if let maxAge = imageRequest.maxAge {
            headers[.cacheControl] = maxAge == 0 ? "no-cache" : "public, max-age=\(maxAge)"
        }
        if let expires = imageRequest.expires {
            let left = max(0, (expires - now) / 1000)
            let asked = imageRequest.maxAge ?? Int.max
            headers[.cacheControl] = left == 0 || asked == 0 ? "no-cache" : "public, max-age=\(min(Int(clamping: left), asked)), s-maxage=\(min(Int(clamping: left), asked))"
        }
        if let attachment = imageRequest.attachment {
            let name = attachment ?? downloadName(image, format: format)
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
    }

    /// A download name made from the image part: its last path part's letters, digits, `-` and
    /// `_`, with the output format's extension.
    static func downloadName(_ image: String, format: ImageFormat) -> String {
        let decoded = Base64Source.decoded(image) ?? image.removingPercentEncoding ?? image
        // A source URL's query is not part of its name.
        let path = decoded.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? decoded
        let last = path.split(separator: "/").last.map(String.init) ?? "image"
        let stem = last.split(separator: ".").first.map(String.init) ?? last
        let kept = String(stem.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }.prefix(80))
        return (kept.isEmpty ? "image" : kept) + "." + format.descriptor.names[0]
    }

    /// Fills in the automatic format from the request's `Accept` when the URL asks for it
    /// (`format(auto)`) or names no format on a server with `--auto-format` (or `--auto-webp`):
    /// the one place a request's format is negotiated.
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

    /// How many stalled readers (clients that took nothing of their answers for a second) lose
    /// their connections each time the answer memory refuses an answer.
    static let stalledPerRefusal = 4

    /// The refusal of an answer the answer memory cannot hold, closing stalled readers first.
    private func answersFull() -> ServerError {
        metrics.refused("answers_full")
        connections.evictStalled(Self.stalledPerRefusal)
        return ServerError(.serverAnswersFull, "too many large answers are being sent now; try again shortly")
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
        // The identity of a URL source is known once it has been fetched.
        let contentID = id ?? result.contentID
        let version = CropVersion(
            contentID: contentID, configuration: pipeline.configurationTag, revision: result.overrideRevision,
            savedCropsUnknown: result.savedCropsUnknown)
        // Only a complete result of this configuration (a key; no fallback) is given a year.
        if let version, result.key != nil, version.isNamed(byQuery: request.uri.query) {
            headers[.cacheControl] = CropVersion.immutableCaching(sharedMaxAge: configuration.maxAge)
        }
        if result.savedCropsUnknown {
            headers[.focalDegraded] = Self.savedCropsDegraded
            headers[.cacheControl] = Self.degradedCaching
        }
        if let contentID { headers[.xkey] = contentID }
        let plan = DocumentEncoding.text(PlanHeaderDocument(result, version: version))
        headers[.focalPlan] = plan
        headers[.serverTiming] = ServerTiming.value(plan: plan, type: result.format.mediaType, timings: result.timings, origin: result.origin)
        if result.origin == .fresh, !result.joinedInFlight { metrics.steps(result.timings) }
        if let match = request.headers[.ifNoneMatch],
            match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag })
        {
            return Response(status: .notModified, headers: headers)
        }
        guard let hold = answers.hold(result.data) else { throw answersFull() }
        headers[.contentLength] = String(result.data.count)
        return Response(status: .ok, headers: headers, body: AnswerBody.make(hold, eventLoop: eventLoop))
    }

    /// thumbor's `meta/` JSON, with Focal's own object beside it: the plan the image URL renders
    /// (one library call plans it, saved crop included), its crop version and inline preview
    /// (none for a URL source), and every subject every detector finds, from one open and one
    /// detection.
    /// - Returns: The document, the image's identity, and whether the saved crops could not be read.
    func meta(url: ThumborURL, input: ImageInput, id known: String?, rule: TargetRule, options: FocalOptions) async throws
        -> (MetaDocument, String?, Bool)
    {
        let plans = try await pipeline.plan(input, frames: [rule], options: options, listing: .everything)
        let id = known ?? plans.analysis.contentID
        guard let frame = plans.frames.first else { throw ServerError(.internalFailure, "meta planned no frame") }
        let version = CropVersion(
            contentID: id, configuration: pipeline.configurationTag, revision: frame.savedCrop?.revision, savedCropsUnknown: plans.savedCropsUnknown)
        let preview = try await FramePreview.dataURIs(
            of: [frame.plan.crop], in: input, contentID: id, pipeline: pipeline, budget: configuration.previewBudget,
            redaction: Redaction.enforcing(configuration.redact, over: options.redaction), like: options
        ).first ?? nil
        let document = MetaDocument(
            url: url, analysis: plans.analysis, frame: frame, id: id, flip: options.flip, version: version?.description, preview: preview,
            delivered: options.deliveredSize(of: frame.plan.outputSize))
        return (document, id, plans.savedCropsUnknown)
    }

    /// `X-Focal-Degraded` when the saved crops could not be read: the answer is what would be
    /// made were nothing saved.
    static let savedCropsDegraded = "saved-crops"
    /// The caching of a degraded answer: a cache in front keeps it 5 s at most.
    static let degradedCaching = "public, max-age=0, must-revalidate, s-maxage=5"

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
