import Focal
import FocalImaging
public import Foundation

/// Uploaded images as files named by their identity in one folder, written atomically.
public struct FolderImageStore: ImageStore {
    /// The folder.
    public let folder: String

    /// Uses (and creates) `folder`.
    /// - Throws: `ServerError` (`server.storage`) when the folder cannot be made.
    public init(folder: String) throws(ServerError) {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ServerError(.serverStorage, "the upload folder cannot be created", cause: "\(folder): \(error)")
        }
        self.folder = folder
    }

    public func put(_ data: Data, id: String) async throws {
        guard SourceResolver.isImageID(id) else { throw ServerError.invalid("an image id is 64 hex digits") }
        let path = folder + "/" + id
        // Disk work runs on a thread of its own, not on Swift's cooperative threads.
        try await ThreadExecutor().run { () throws -> Void in
            if FileManager.default.fileExists(atPath: path) { return }
            do {
                try AtomicFile.write(data, to: path)
            } catch {
                throw ServerError(.serverStorage, "the upload could not be stored", cause: (error as? any FocalError)?.detail ?? "\(error)")
            }
        }
    }

    /// The file an upload with this identity is (or would be) kept in; nil for a malformed id.
    public func path(_ id: String) -> String? {
        SourceResolver.isImageID(id) ? folder + "/" + id : nil
    }

    public func get(_ id: String) async throws -> Data? {
        guard SourceResolver.isImageID(id) else { return nil }
        let path = folder + "/" + id
        return try await ThreadExecutor().run { FileManager.default.contents(atPath: path) }
    }
}
