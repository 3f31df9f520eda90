import FocalCore
import FocalImaging
import Foundation
import Synchronization

/// An http or https URL: downloaded under the pipeline's network settings (`URLLoader`: its
/// address policy, redirects, time and byte limits), then identified by its bytes when asked.
struct URLReader: SourceReader {
    let name = "url"

    func input(named text: String, size: PixelSize?, limits: ImageLimits) throws -> ImageInput? {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        guard let url = URL(string: text), url.host?.isEmpty == false else {
            throw ImagingError(.requestInvalid, "the image URL is malformed", hint: "write it http(s)://HOST/PATH, percent-encoded")
        }
        return .url(url)
    }

    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    {
        guard case let .url(url) = input.location else { return (input.location, identity) }
        pipeline.counters.withLock { $0.downloads += 1 }
        let data = try await pipeline.loader.fetch(url)
        try Task.checkCancellation()
        return try await pipeline.identified(.data(data, name: url.absoluteString), identity: identity, identify: identify)
    }

    func readable(_ location: ImageInput.Location, identifiedAs expected: String?, in pipeline: FocalPipeline) async throws -> ImageInput.Location {
        guard case let .url(url) = location else { return location }
        throw ImagingError(.internalFailure, "a URL must be fetched before it is opened", source: url.absoluteString)
    }
}
