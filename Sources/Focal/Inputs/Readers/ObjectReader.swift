import FocalCore
import FocalFetch
import Synchronization

/// An object in a bucket (`s3://BUCKET/KEY`), through the pipeline's `ObjectSource`. Identified by
/// what the store says of it (`ObjectSource.id(of:etag:size:)`: its address, ETag and length, one `HEAD`, no
/// download); a store that names no version has its bytes read and hashed. Its bytes are read
/// when a crop needs them, and refused when the object was replaced since it was identified (its
/// bytes are not the identity the job has, and would be cached under it).
struct ObjectReader: SourceReader {
    let name = "object"

    func input(named text: String, size: PixelSize?, limits: ImageLimits) throws -> ImageInput? {
        guard ObjectAddress.looksLikeOne(text) else { return nil }
        guard let address = ObjectAddress(text) else {
            throw StorageError(.storageInvalidAddress, address: text.excerpt(), "the image is not s3://BUCKET/KEY with a valid bucket name and key")
        }
        return .object(address)
    }

    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    {
        guard case let .object(address) = input.location, identity == nil, identify, pipeline.configuration.identifyByContent else {
            return (input.location, identity)
        }
        let head = try await pipeline.objects.head(address)
        if let etag = head.etag { return (input.location, .content(pipeline.objects.remember(address, etag: etag, size: head.size))) }
        let object = try await pipeline.objects.read(address)
        return try await pipeline.identified(.data(object.data, name: address.description), identity: identity, identify: identify)
    }

    func readable(_ location: ImageInput.Location, identifiedAs expected: String?, in pipeline: FocalPipeline) async throws -> ImageInput.Location {
        guard case let .object(address) = location else { return location }
        let known = pipeline.objects.known(address)
        let object = try await pipeline.objects.read(address)
        let current = object.etag.map { ObjectSource.id(of: address, etag: $0, size: object.data.count) }
        let replaced = expected.map { current != $0 } ?? (known.map { object.etag != $0.etag } ?? false)
        if replaced {
            pipeline.objects.forget(address)
            throw StorageError(
                .storageUnavailable, address: address.description, "the object was replaced while it was read; try again",
                cause: "identified as \(expected ?? known?.contentID ?? "?"), read as \(current ?? "no ETag")")
        }
        return .data(object.data, name: address.description)
    }
}
