import FocalCore
import FocalRuntime

/// imagor's `color:` source (`BlankImage`): made, not read, and named by its colour and size
/// (`ImageInput.blank`), never hashed.
struct BlankReader: SourceReader {
    let name = "blank"

    func input(named text: String, size: PixelSize?, limits: ImageLimits) throws -> ImageInput? {
        guard BlankImage.names(text) else { return nil }
        guard let size else {
            throw PlanningError.invalidOption("a color: source is made at the output's size: give the output a width and a height (WxH in a URL, a sized frame in a plan, --size on the command line)")
        }
        return .blank(try BlankImage(text, size: size, limits: limits))
    }

    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    {
        guard case let .blank(blank) = input.location else { return (input.location, identity) }
        let data = try await pipeline.pool.run { try blank.encoded() }
        try Admission.reserve(data.count)
        return (.data(data, name: blank.description), identity ?? ImageIdentity(cacheName: blank.description))
    }

    func readable(_ location: ImageInput.Location, identifiedAs expected: String?, in pipeline: FocalPipeline) async throws -> ImageInput.Location {
        guard case let .blank(blank) = location else { return location }
        return .data(try await pipeline.pool.run { try blank.encoded() }, name: blank.description)
    }
}
