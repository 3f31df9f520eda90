import Focal
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Saved crops: `GET /v1/images/{id}/overrides`, and `GET`, `PUT`, `DELETE`
/// `/v1/images/{id}/overrides/{aspect}` (`{aspect}` written `16x9`). Reads are signed on a
/// signed-only server; writes need the token; `PUT` and `DELETE` honour `If-Match: "<revision>"`
/// and `If-None-Match: *`. Every call to the store goes through its gateway (deadlines, breaker).
struct SavedCropController: Controller {
    let library: ImageLibrary
    let savedCrops: SavedCropGateway
    let pipeline: FocalPipeline
    let bodies: RequestBodies
    let logger: Logger

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        routes.get("/v1/images/:id/overrides") { request, context in
            try bodies.authorizeRead(request)
            return try await listOverrides(id: context.parameters.get("id") ?? "")
        }
        routes.get("/v1/images/:id/overrides/:aspect") { request, context in
            try bodies.authorizeRead(request)
            return try await getOverride(id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
        writes.put("/v1/images/:id/overrides/:aspect") { request, context in
            try await putOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
        writes.delete("/v1/images/:id/overrides/:aspect") { request, context in
            try await deleteOverride(request, id: context.parameters.get("id") ?? "", aspect: context.parameters.get("aspect") ?? "")
        }
    }

    struct CropBody: Decodable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    /// The revision an `If-Match` header names: `"3"` or `3`; `*` is nil (any); absent is nil.
    /// Without `If-Match`, `If-None-Match: *` is 0 (none may be saved); it takes only `*`.
    static func expectedRevision(_ request: Request) throws(ServerError) -> Int? {
        guard let header = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else {
            guard let none = request.headers[.ifNoneMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
            guard none == "*" else { throw ServerError.invalid("If-None-Match on a saved crop takes only *") }
            return 0
        }
        guard header != "*" else { return nil }
        let text = header.hasPrefix("W/") ? String(header.dropFirst(2)) : header
        guard let revision = Int(text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))), revision >= 0 else {
            throw ServerError.invalid("If-Match names a revision, e.g. \"3\"")
        }
        return revision
    }

    /// The image with this id, as an input, or 404.
    func knownImage(_ id: String) async throws -> ImageInput {
        let id = id.lowercased()
        guard SourceResolver.isImageID(id) else { throw ServerError(.requestNotFound, "no image with that id") }
        do {
            return try await library.input(for: .upload(id: id)).0
        } catch let error as ServerError where error.code == .inputNotFound {
            throw ServerError(.requestNotFound, "no image with id \(id)")
        }
    }

    func listOverrides(id: String) async throws -> Response {
        _ = try await knownImage(id)
        let saved = try await savedCrops.list(image: id.lowercased())
        return JSONAnswer.make(SavedCropsAnswer(image: id.lowercased(), overrides: saved.map(SavedCropDocument.init)))
    }

    func getOverride(id: String, aspect: String) async throws -> Response {
        let key = try AspectKey(parsing: aspect)
        _ = try await knownImage(id)
        guard let saved = try await savedCrops.get(image: id.lowercased(), aspect: key) else {
            throw ServerError(.requestNotFound, "no crop saved for this image at \(key)")
        }
        return JSONAnswer.make(SavedCropDocument(saved), headers: [.eTag: "\"\(saved.revision)\""])
    }

    func putOverride(_ request: Request, id: String, aspect: String) async throws -> Response {
        let key = try AspectKey(parsing: aspect)
        let expected = try Self.expectedRevision(request)
        let body = try await bodies.decode(CropBody.self, from: request)
        let input = try await knownImage(id)
        let size = try await pipeline.analyze(input, detect: false).size
        let crop = PixelRect(x: body.x, y: body.y, width: body.width, height: body.height)
        guard crop.width > 0, crop.height > 0, crop.isInside(size) else {
            throw ServerError.invalid("the crop \(crop) must lie inside the image of \(size) pixels")
        }
        guard key.matches(crop) else {
            throw ServerError.invalid("the crop \(crop.width)x\(crop.height) is not \(key) (within a pixel)")
        }
        let (saved, created) = try await savedCrops.save(image: id.lowercased(), aspect: key, crop: crop, expected: expected)
        logger.info("override saved", metadata: ["image": .string(saved.image), "aspect": .string(key.description), "revision": .stringConvertible(saved.revision)])
        return JSONAnswer.make(SavedCropDocument(saved), status: created ? .created : .ok, headers: [.eTag: "\"\(saved.revision)\""])
    }

    func deleteOverride(_ request: Request, id: String, aspect: String) async throws -> Response {
        let key = try AspectKey(parsing: aspect)
        let expected = try Self.expectedRevision(request)
        _ = try await knownImage(id)
        guard try await savedCrops.delete(image: id.lowercased(), aspect: key, expected: expected) else {
            throw ServerError(.requestNotFound, "no crop saved for this image at \(key)")
        }
        logger.info("override deleted", metadata: ["image": .string(id.lowercased()), "aspect": .string(key.description)])
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
