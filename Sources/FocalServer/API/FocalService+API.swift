import Crypto
import Focal
import FocalImaging
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// The JSON API for applications and the web page.
extension FocalService {
    /// A source named in a JSON body: `{"path": ...}` under the root, `{"id": ...}`, or `{"url": ...}`.
    struct SourceBody: Decodable {
        var path: String?
        var id: String?
        var url: String?
    }

    /// One frame of `/v1/plan`: a size or an aspect.
    struct FrameBody: Decodable {
        var width: Int?
        var height: Int?
        var aspect: String?
    }

    /// Crop options of `/v1/plan`: any option of `CropOption.all` by its name, its value a string,
    /// a number or (for `detect`) a boolean, spelled as in a URL; and `overrides`.
    struct OptionsBody: Decodable {
        /// The crop options given, as text.
        var values: [String: String] = [:]
        /// Whether saved crops decide the frames they apply to; default true (false shows what
        /// Focal would choose on its own).
        var overrides: Bool?

        private struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Name.self)
            for key in container.allKeys {
                if key.stringValue == "overrides" {
                    overrides = try container.decode(Bool.self, forKey: key)
                } else if let flag = try? container.decode(Bool.self, forKey: key) {
                    values[key.stringValue] = flag ? "on" : "off"
                } else if let number = try? container.decode(Double.self, forKey: key) {
                    values[key.stringValue] = number.canonicalText
                } else {
                    values[key.stringValue] = try container.decode(String.self, forKey: key)
                }
            }
        }
    }

    struct PlanBody: Decodable {
        var source: SourceBody
        var frames: [FrameBody]
        var options: OptionsBody?
    }

    struct DetectBody: Decodable {
        var source: SourceBody
        var accuracy: String?
    }

    /// Reads a JSON body, bounded while it streams (`RequestLimits.maxJSONBytes`).
    func decodeBody<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        var request = request
        let buffer = try await collect(&request, limit: configuration.requests.maxJSONBytes)
        return try decode(T.self, from: buffer)
    }

    /// Reads a JSON body that a signed-only server must see signed (or the token): the signature
    /// covers the body's bytes. A body `isPublic` accepts needs neither.
    func decodeReadBody<T: Decodable>(
        _ type: T.Type, from request: Request, public isPublic: (T) -> Bool = { _ in false }
    ) async throws -> T {
        var request = request
        let buffer = try await collect(&request, limit: configuration.requests.maxJSONBytes)
        guard configuration.signedOnly else { return try decode(T.self, from: buffer) }
        let body = try? decode(T.self, from: buffer)
        if body.map(isPublic) != true { try authorization.checkRead(request, body: buffer) }
        return try body ?? decode(T.self, from: buffer)
    }

    /// Checks a body-less read of the JSON API on a signed-only server.
    func authorizeRead(_ request: Request, public isPublic: Bool = false) throws(ServerError) {
        guard configuration.signedOnly, !isPublic else { return }
        try authorization.checkRead(request)
    }

    private func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw ServerError.invalid("the JSON body is not what this endpoint takes: \(Self.describe(error))")
        } catch {
            throw ServerError.invalid("the body is not valid JSON")
        }
    }

    /// The body, refused with 413 as soon as it passes `limit` bytes. A body that ends before its
    /// `Content-Length` (the client went away) is `client.aborted`, never handled as if whole.
    func collect(_ request: inout Request, limit: Int) async throws -> ByteBuffer {
        do {
            let body = try await request.collectBody(upTo: limit)
            if let declared = request.headers[.contentLength].flatMap({ Int($0) }), body.readableBytes < declared {
                throw ServerError(.clientAborted, "the body ended after \(body.readableBytes) of \(declared) bytes")
            }
            return body
        } catch is NIOTooManyBytesError {
            throw ServerError(.requestTooLarge, "the body is larger than \(limit) bytes")
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw ServerError(.requestTooLarge, "the body is larger than \(limit) bytes")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): "\"\(key.stringValue)\" is missing"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            context.codingPath.map(\.stringValue).joined(separator: ".").isEmpty
                ? context.debugDescription : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not valid"
        @unknown default: "it does not decode"
        }
    }

    /// The source a JSON body names.
    func source(_ body: SourceBody) throws(ServerError) -> ImageSource {
        let given = [body.path, body.id, body.url].compactMap { $0 }
        guard given.count == 1 else { throw ServerError.invalid("name the source by exactly one of path, id or url") }
        if let path = body.path { return try resolver.file(path) }
        if let id = body.id {
            let id = id.lowercased()
            guard SourceResolver.isImageID(id) else { throw ServerError.invalid("an image id is 64 hex digits") }
            return .upload(id: id)
        }
        return try resolver.resolve(body.url ?? "")
    }

    /// The crop options a JSON body gives, read through the option table.
    static func options(_ body: OptionsBody?) throws(ServerError) -> FocalOptions {
        var options = FocalOptions()
        for (name, value) in body?.values.sorted(by: { $0.key < $1.key }) ?? [] {
            guard let option = CropOption.named(name) else {
                throw ServerError.invalid("unknown option \"\(String(name.prefix(64)).oneLine)\"; Focal knows \((CropOption.all.map(\.name) + ["overrides"]).joined(separator: ", "))")
            }
            do { try option.apply(value, to: &options) } catch { throw ServerError.invalid(error.publicMessage) }
        }
        return options
    }

    /// The target a frame names.
    static func target(_ frame: FrameBody) throws(ServerError) -> CropTarget {
        do {
            if let aspect = frame.aspect {
                guard frame.width == nil, frame.height == nil else {
                    throw ServerError.invalid("a frame is a width and height, or an aspect, not both")
                }
                return try CropTarget(parsingAspect: aspect)
            }
            guard let width = frame.width, let height = frame.height else {
                throw ServerError.invalid("a frame needs width and height, or an aspect like \"16:9\"")
            }
            let target = CropTarget.size(width: width, height: height)
            try target.validate()
            return target
        } catch let error as ServerError {
            throw error
        } catch let error as PlanningError {
            throw ServerError.invalid(error.publicMessage)
        } catch {
            throw ServerError.invalid("the frame is not valid")
        }
    }

    /// `POST /v1/plan`: one source, many frames, one decode and one detection.
    func plan(_ request: Request) async throws -> Response {
        // Public photos are planned for anyone (the page shows what Focal saw); other sources,
        // and any source where photos are not public, need a signature or the token.
        let body = try await decodeReadBody(PlanBody.self, from: request) { [configuration] body in
            configuration.publicPhotos && body.source.path != nil && body.source.id == nil && body.source.url == nil
        }
        let maxFrames = configuration.requests.maxFrames
        guard !body.frames.isEmpty, body.frames.count <= maxFrames else {
            throw ServerError.invalid("give between 1 and \(maxFrames) frames")
        }
        let targets = try body.frames.map { frame throws(ServerError) in try Self.target(frame) }
        let options = try Self.options(body.options)
        let source = try source(body.source)
        let (input, known) = try await input(for: source)
        let limits = configuration.pipeline.limits
        for case let .size(w, h) in targets { try limits.check(output: PixelSize(width: w, height: h)) }
        let (object, found, degraded) = try await RequestTimeout.run(configuration.requestTimeout) { [self] () -> (Data, String?, Bool) in
            // One open and one detection: frames are planned on what a crop uses, as the image URL
            // renders them; the subjects listed are everything found.
            let plans = try await pipeline.plan(
                input, frames: targets.map(TargetRule.fixed), options: options, savedCrops: body.options?.overrides ?? true,
                listing: options.crop.needsDetection ? .everything : .crop)
            let id = known ?? plans.analysis.contentID
            return (DocumentEncoding.data(PlanAnswer(plans, id: id, options: options)), id, plans.savedCropsUnknown)
        }
        if known == nil, let found { learn(found, for: source) }
        return json(data: object, headers: degraded ? [.focalDegraded: Self.savedCropsDegraded] : [:])
    }

    /// `POST /v1/detect`: every subject every detector finds.
    func detect(_ request: Request) async throws -> Response {
        let body = try await decodeReadBody(DetectBody.self, from: request)
        var options = FocalOptions()
        if let accuracy = body.accuracy, let option = CropOption.named("accuracy") {
            do { try option.apply(accuracy, to: &options) } catch { throw ServerError.invalid(error.publicMessage) }
        }
        let accuracy = options.accuracy
        let (input, known) = try await input(for: source(body.source))
        let object = try await RequestTimeout.run(configuration.requestTimeout) { [self] () -> Data in
            let analysis = try await pipeline.analyze(input, accuracy: accuracy, scope: .everything)
            return DocumentEncoding.data(
                DetectAnswer(image: ImageDocument(id: known ?? analysis.contentID, size: analysis.size), subjects: analysis.subjects.map(SubjectDocument.init)))
        }
        return json(data: object)
    }

    /// `POST /v1/images`: stores an image sent as the raw body; answers its identity and size.
    func upload(_ request: Request) async throws -> Response {
        var request = request
        let limit = min(configuration.maxBodyBytes, configuration.pipeline.limits.maxInputBytes)
        let buffer = try await collect(&request, limit: limit)
        let data = Data(buffer: buffer)
        // Only what opens as an image within the limits is kept; the check is admitted as a job.
        let limits = configuration.pipeline.limits
        let image = try await pipeline.admitted(bytes: data.count) {
            try await pipeline.runNative { try SourceImage.open(data: data, name: "upload", limits: limits) }
        }
        let id = Self.hex(SHA256.hash(data: data))
        try await uploads.put(data, id: id)
        if let shared { try await savedCrops.call(savedCrops.writeDeadline, counted: false) { try await shared.putUpload(data, id: id) } }
        return json(UploadAnswer(id: id, width: image.size.width, height: image.size.height, format: image.format), status: .created)
    }

    /// `GET /v1/images/{id}`: the original bytes of an upload or a file under the root, streamed
    /// from disk (never held whole). On a signed-only server it needs a signature or the token,
    /// unless `publicPhotos`.
    func original(_ request: Request, id: String, context: some RequestContext) async throws -> Response {
        try authorizeRead(request, public: configuration.publicPhotos)
        let id = id.lowercased()
        guard SourceResolver.isImageID(id) else { throw ServerError(.requestNotFound, "no image with that id") }
        var path: String?
        if let relative = catalog.path(for: id), case let .file(file, _) = try resolver.file(relative), ImageCatalog.stamp(file) != nil {
            path = file
        } else if let upload = uploads.path(id), ImageCatalog.stamp(upload) != nil {
            path = upload
        } else if let shared, let data = try await savedCrops.call(savedCrops.writeDeadline, counted: false, { try await shared.upload(id) }) {
            // Uploaded through another replica: kept here from then on.
            try await uploads.put(data, id: id)
            path = uploads.path(id)
        }
        guard let path, let stamp = ImageCatalog.stamp(path) else { throw ServerError(.requestNotFound, "no image with id \(id)") }
        let head = try await ThreadExecutor().run { () -> Data in
            guard let handle = FileHandle(forReadingAtPath: path) else { return Data() }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: ImageSignature.prefixLength)) ?? Data()
        }
        let type = ImageSignature.format(of: head).map { "image/\($0)" } ?? "application/octet-stream"
        let body = try await FileIO().loadFile(path: path, context: context)
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "public, max-age=31536000, immutable", .contentLength: String(stamp.size), .xkey: id,
                .contentSecurityPolicy: ImageHeaders.contentSecurityPolicy,
            ],
            body: body)
    }

    /// `GET /v1/photos`: the photos under the root folder, with their identities, from the index
    /// (waiting up to 2 s for its first listing after a start). On a signed-only server it needs a
    /// signature or the token, unless `publicPhotos`.
    func photos(_ request: Request) async throws -> Response {
        try authorizeRead(request, public: configuration.publicPhotos)
        let deadline = ContinuousClock.now + .seconds(2)
        while configuration.root != nil, !catalog.isScanned, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let entries = catalog.list()
        return json(["photos": entries.map { ["path": $0.path, "id": $0.id] }])
    }
}
