import FocalFetch
import FocalImaging
import FocalRuntime
import Foundation

/// A file on disk. Identified by its bytes' SHA-256 only when it has no identity and one is
/// asked for: it is then read into memory once, for its identity and its pixels (a regular file
/// only, up to the byte limit); otherwise the decoder reads it.
struct FileReader: SourceReader {
    let name = "file"

    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    {
        guard case let .file(path) = input.location else { return (input.location, identity) }
        if ObjectAddress.looksLikeOne(path) {
            throw StorageError(
                .storageInvalidAddress, address: path, "is not s3://BUCKET/KEY with a bucket name of 3-63 characters (a-z, 0-9, dots, hyphens) and a key")
        }
        guard identity == nil, identify, pipeline.configuration.identifyByContent else { return (input.location, identity) }
        let maxBytes = pipeline.configuration.limits.maxInputBytes
        let data = try await pipeline.pool.run { () throws -> Data in
            do throws(InputFile.Failure) {
                return try InputFile.read(path, maxBytes: maxBytes)
            } catch {
                if let limit = error.limit { throw limit }
                throw ImagingError(error.code, error.message, source: path, cause: error.cause)
            }
        }
        try Admission.reserve(data.count)
        return try await pipeline.identified(.data(data, name: path), identity: identity, identify: identify)
    }
}
