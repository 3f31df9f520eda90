import Focal
import FocalImaging
import Foundation

/// Where the images the service serves are, in one place: photos under the root (a folder or a
/// bucket; by path, or by identity through the catalog's index), uploads (this replica's folder,
/// then the store replicas share: the root bucket, or PostgreSQL), and URL and `s3://` sources.
/// Every route that names an image asks here, in the same order.
final class ImageLibrary: Sendable {
    /// Turns an image part or a path into a source under the root, a URL, an object or an id.
    let resolver: SourceResolver
    /// The identities of the photos under the root.
    let catalog: ImageCatalog
    /// Uploads kept by this replica.
    let uploads: FolderImageStore
    /// Uploads every replica shares (the root bucket, or PostgreSQL), when there is such a store.
    let shared: (any ImageStore)?

    init(resolver: SourceResolver, catalog: ImageCatalog, uploads: FolderImageStore, shared: (any ImageStore)?) {
        self.resolver = resolver
        self.catalog = catalog
        self.uploads = uploads
        self.shared = shared
    }

    /// The pipeline input for a source, and the image's identity when it is known without any
    /// work: nothing here reads, lists or hashes (an unidentified file is identified by content
    /// inside its admitted job; an object by its ETag, or its bytes, there too).
    /// - Throws: `ServerError` (`input.not_found`) for a file or id that is not here.
    func input(for source: ImageSource) async throws -> (ImageInput, String?) {
        switch source {
        case let .input(input, relative):
            // A file under the root: its identity when the catalog knows it (by path and stamp).
            guard let relative, case let .file(path) = input.location else { return (input, nil) }
            guard let stamp = ImageCatalog.stamp(path) else { throw ServerError(.inputNotFound, "no image \(relative.excerpt()) here") }
            let id = catalog.knownIdentity(path: path, stamp: stamp)
            return (.file(path, contentID: id), id)
        case let .upload(id):
            guard let input = try await located(id: id) else { throw ServerError(.inputNotFound, "no image with id \(id)") }
            // An object the catalog listed under this id is identified again (by its ETag) when read.
            if case .object = input.location { return (input, nil) }
            return (input, id)
        }
    }

    /// Where the image with identity `id` is, or nil: an upload kept here, a photo under the root
    /// by the catalog's index (a miss is a look-up, never a scan), else an upload made through
    /// another replica, from the shared store (asked last, so that a store away costs only these)
    /// and kept here from then on.
    func located(id: String) async throws -> ImageInput? {
        guard let upload = uploads.path(id) else { return nil }
        if ImageCatalog.stamp(upload) != nil { return .file(upload, contentID: id) }
        if let relative = catalog.path(for: id) {
            if case let .input(input, _) = try resolver.file(relative) {
                switch input.location {
                case let .file(path) where ImageCatalog.stamp(path) != nil:
                    return .file(path, contentID: id)
                case let .object(address):
                    // Identified again when read: the object may have been replaced since it was listed.
                    return .object(address)
                default:
                    break
                }
            }
        }
        if let shared, let data = try await shared.get(id) {
            try await uploads.put(data, id: id)
            return .file(upload, contentID: id)
        }
        return nil
    }

    /// Keeps an upload, here and in the shared store.
    func store(upload data: Data, id: String) async throws {
        try await uploads.put(data, id: id)
        try await shared?.put(data, id: id)
    }

    /// Tells the catalog the identity a request found for a file under the root.
    func learn(_ id: String, for source: ImageSource) {
        guard case let .input(input, relative?) = source, case let .file(path) = input.location, let stamp = ImageCatalog.stamp(path) else { return }
        catalog.remember(path: path, relative: relative, stamp: stamp, id: id)
    }
}
