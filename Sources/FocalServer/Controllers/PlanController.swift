import Focal
import Foundation
import HTTPTypes
import Hummingbird

/// `POST /v1/plan` and `POST /v1/detect`: a source's plans of many frames, or every subject found,
/// as JSON. Reads, signed on a signed-only server (public photos are planned for anyone).
struct PlanController: Controller {
    let configuration: ServerConfiguration
    let library: ImageLibrary
    let pipeline: FocalPipeline
    let bodies: RequestBodies

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        routes.post("/v1/plan") { request, _ in try await plan(request) }
        routes.post("/v1/detect") { request, _ in try await detect(request) }
    }

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
        /// Whether each frame also gets `preview`, its crop as a tiny inline image.
        var previews: Bool?
    }

    struct DetectBody: Decodable {
        var source: SourceBody
        var accuracy: String?
    }

    /// The source a JSON body names.
    func source(_ body: SourceBody, size: PixelSize? = nil) throws(ServerError) -> ImageSource {
        let given = [body.path, body.id, body.url].compactMap { $0 }
        guard given.count == 1 else { throw ServerError.invalid("name the source by exactly one of path, id or url") }
        if let path = body.path { return try library.resolver.file(path) }
        if let id = body.id {
            let id = id.lowercased()
            guard SourceResolver.isImageID(id) else { throw ServerError.invalid("an image id is 64 hex digits") }
            return .upload(id: id)
        }
        return try library.resolver.resolve(body.url ?? "", size: size, limits: configuration.pipeline.limits)
    }

    /// The size a made source (`{"url": "color:ff6600"}`) is made at: the largest sized frame's,
    /// nil when no frame has a size.
    static func madeSize(_ frames: [CropTarget]) -> PixelSize? {
        frames.compactMap { frame -> PixelSize? in if case let .size(w, h) = frame { PixelSize(width: w, height: h) } else { nil } }
            .max(by: { $0.area < $1.area })
    }

    /// The crop options a JSON body gives, read through the option table: a `"preset"` (the
    /// server's `--preset` of filters alone) first, then the others over it.
    /// - Parameters:
    ///   - presets: The server's presets; default none.
    ///   - presetsOnly: Whether a body must name a preset (`--presets-only`); default false.
    static func options(_ body: OptionsBody?, presets: [String: Preset] = [:], presetsOnly: Bool = false) throws(ServerError) -> FocalOptions {
        var options = FocalOptions()
        var values = body?.values ?? [:]
        if let name = values.removeValue(forKey: "preset") {
            guard let preset = presets[name] else {
                throw ServerError.invalid("no preset is named '\(String(name.prefix(40)).oneLine)'; this server has \(presets.isEmpty ? "none" : presets.keys.sorted().prefix(20).joined(separator: ", "))")
            }
            guard preset.options.isEmpty else {
                throw ServerError.invalid("preset \(name) gives a size or crop; /v1/plan's frames give theirs: name a preset of filters alone")
            }
            options = try preset.filterOptions()
        } else if presetsOnly {
            throw ServerError(.requestPresetRequired, "this server serves presets only: name one in the options (\"preset\": \"NAME\")")
        }
        for name in values.keys.sorted() where CropOption.named(name) == nil {
            throw ServerError.invalid("unknown option \"\(String(name.prefix(64)).oneLine)\"; Focal knows \((CropOption.all.map(\.name) + ["preset", "overrides"]).joined(separator: ", "))")
        }
        // In the table's order, as on the command line (effects apply in that order).
        for option in CropOption.all {
            guard let value = values[option.name] else { continue }
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
        let body = try await bodies.decodeRead(PlanBody.self, from: request) { [configuration] body in
            configuration.publicPhotos && body.source.path != nil && body.source.id == nil && body.source.url == nil
        }
        let maxFrames = configuration.requests.maxFrames
        guard !body.frames.isEmpty, body.frames.count <= maxFrames else {
            throw ServerError.invalid("give between 1 and \(maxFrames) frames")
        }
        let targets = try body.frames.map { frame throws(ServerError) in try Self.target(frame) }
        let options = try Self.options(body.options, presets: configuration.presets, presetsOnly: configuration.presetsOnly)
        let source = try source(body.source, size: Self.madeSize(targets))
        let (input, known) = try await library.input(for: source)
        let limits = configuration.pipeline.limits
        for case let .size(w, h) in targets { try limits.check(output: PixelSize(width: w, height: h)) }
        let (plans, found) = try await RequestTimeout.run(configuration.requestTimeout) { [pipeline] () -> (FramePlans, String?) in
            // One open and one detection: frames are planned on what a crop uses, as the image URL
            // renders them; the subjects listed are everything found.
            let plans = try await pipeline.plan(
                input, frames: targets.map(TargetRule.fixed), options: options, savedCrops: body.options?.overrides ?? true,
                listing: options.crop.needsDetection ? .everything : .crop)
            return (plans, known ?? plans.analysis.contentID)
        }
        // Previews have a budget of their own: when it runs out the plan is answered without them.
        let previews = body.previews == true ? try await FramePreview.dataURIs(
                of: plans.frames.map(\.plan.crop), in: input, contentID: found, pipeline: pipeline, budget: configuration.previewBudget,
                redaction: Redaction.enforcing(configuration.redact, over: options.redaction), like: options) : []
        let object = DocumentEncoding.data(PlanAnswer(plans, id: found, options: options, configuration: pipeline.configurationTag, previews: previews))
        let degraded = plans.savedCropsUnknown
        if known == nil, let found { library.learn(found, for: source) }
        return JSONAnswer.make(data: object, headers: degraded ? [.focalDegraded: ImageController.savedCropsDegraded] : [:])
    }

    /// `POST /v1/detect`: every subject every detector finds.
    func detect(_ request: Request) async throws -> Response {
        let body = try await bodies.decodeRead(DetectBody.self, from: request)
        var options = FocalOptions()
        if let accuracy = body.accuracy, let option = CropOption.named("accuracy") {
            do { try option.apply(accuracy, to: &options) } catch { throw ServerError.invalid(error.publicMessage) }
        }
        let accuracy = options.accuracy
        let (input, known) = try await library.input(for: source(body.source))
        let object = try await RequestTimeout.run(configuration.requestTimeout) { [pipeline] () -> Data in
            let analysis = try await pipeline.analyze(input, accuracy: accuracy, scope: .everything)
            return DocumentEncoding.data(
                DetectAnswer(image: ImageDocument(id: known ?? analysis.contentID, size: analysis.size), subjects: analysis.subjects.map(SubjectDocument.init)))
        }
        return JSONAnswer.make(data: object)
    }
}
