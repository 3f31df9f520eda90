import Crypto
import Focal
import FocalFetch
public import Foundation

/// Uploads as objects in the root bucket, `PREFIX.focal-uploads/<id>`: every replica reading the
/// bucket sees an upload as soon as its PUT returns. The PUT signs the payload's SHA-256, so the
/// store refuses bytes that changed on the way; a read is checked against the id it was asked by.
struct ObjectImageStore: ImageStore {
    let client: S3Client
    let root: BucketRoot
    let maxBytes: Int

    func address(_ id: String) throws -> ObjectAddress {
        guard SourceResolver.isImageID(id), let address = ObjectAddress(bucket: root.bucket, key: root.uploadsPrefix + id) else {
            throw ServerError.invalid("an image id is 64 hex digits")
        }
        return address
    }

    func put(_ data: Data, id: String) async throws {
        try await client.put(data, at: try address(id), contentType: "application/octet-stream")
    }

    func get(_ id: String) async throws -> Data? {
        do {
            let data = try await client.get(try address(id), maxBytes: maxBytes).data
            // An object that is not what its name says is not served as that image.
            guard ImageController.hex(SHA256.hash(data: data)) == id else { return nil }
            return data
        } catch let error as StorageError where error.code == .storageNotFound {
            return nil
        }
    }
}
