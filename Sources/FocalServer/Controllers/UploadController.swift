import Crypto
import Focal
import FocalImaging
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationCompat

/// Uploads and originals: `POST /v1/images` (a write: the raw body, kept when it opens as an
/// image within the limits), `GET /v1/images/{id}` (the original bytes, streamed from disk) and
/// `GET /v1/photos` (the photos under the root, with their identities).
struct UploadController: Controller {
    let configuration: ServerConfiguration
    let library: ImageLibrary
    let pipeline: FocalPipeline
    let bodies: RequestBodies
    /// The memory answers hold while they are sent (an original read from the bucket).
    let answers: AnswerMemory

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        writes.post("/v1/images") { request, _ in try await upload(request) }
        routes.get("/v1/images/:id") { request, context in
            try await original(request, id: context.parameters.get("id") ?? "", context: context, eventLoop: context.eventLoop)
        }
        routes.get("/v1/photos") { request, _ in try await photos(request) }
    }

    /// `POST /v1/images`: stores an image sent as the raw body; answers its identity and size.
    func upload(_ request: Request) async throws -> Response {
        var request = request
        let limit = min(configuration.maxBodyBytes, configuration.pipeline.limits.maxInputBytes)
        let buffer = try await RequestBodies.collect(&request, limit: limit)
        let data = Data(buffer: buffer)
        // Only what opens as an image within the limits is kept; the check is admitted as a job.
        let limits = configuration.pipeline.limits
        let image = try await pipeline.admitted(bytes: data.count) { [pipeline] in
            try await pipeline.runNative { try SourceImage.open(data: data, name: "upload", limits: limits) }
        }
        let id = ImageController.hex(SHA256.hash(data: data))
        try await library.store(upload: data, id: id)
        return JSONAnswer.make(UploadAnswer(id: id, width: image.size.width, height: image.size.height, format: image.format), status: .created)
    }

    /// `GET /v1/images/{id}`: the original bytes of an upload or a file under the root, streamed
    /// from disk (never held whole); a photo in the root bucket is read (within the byte limit)
    /// and sent. On a signed-only server it needs a signature or the token,
    /// unless `publicPhotos`.
    func original(_ request: Request, id: String, context: some RequestContext, eventLoop: any EventLoop) async throws -> Response {
        try bodies.authorizeRead(request, public: configuration.publicPhotos)
        // Where every image sent is redacted, an original (unredacted) is for the token alone.
        if configuration.redact != nil { try bodies.authorization.check(request) }
        let id = id.lowercased()
        guard SourceResolver.isImageID(id) else { throw ServerError(.requestNotFound, "no image with that id") }
        let located = try await library.located(id: id)
        if case let .object(address) = located?.location {
            // A photo in the root bucket: read (within the byte limit, on the memory budget) and
            // sent only if it is still the image with this id (it may have been replaced since it
            // was listed).
            let (data, current) = try await pipeline.objects.version(address)
            guard current == id else { throw ServerError(.requestNotFound, "no image with id \(id)") }
            let type = ImageSignature.format(of: data).map { "image/\($0)" } ?? "application/octet-stream"
            guard let hold = answers.hold(data) else {
                throw ServerError(.serverAnswersFull, "too many large answers are being sent now; try again shortly")
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: type, .cacheControl: "public, max-age=31536000, immutable", .contentLength: String(data.count), .xkey: id,
                    .contentSecurityPolicy: ImageHeaders.contentSecurityPolicy,
                ],
                body: AnswerBody.make(hold, eventLoop: eventLoop))
        }
        guard case let .file(path)? = located?.location, let stamp = ImageCatalog.stamp(path) else {
            throw ServerError(.requestNotFound, "no image with id \(id)")
        }
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
        try bodies.authorizeRead(request, public: configuration.publicPhotos)
        let deadline = ContinuousClock.now + .seconds(2)
        while configuration.root != nil, !library.catalog.isScanned, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let entries = library.catalog.list()
        return JSONAnswer.make(["photos": entries.map { ["path": $0.path, "id": $0.id] }])
    }
}
