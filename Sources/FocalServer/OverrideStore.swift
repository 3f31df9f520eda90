public import Focal
public import Foundation

/// A crop a person saved for one image at one aspect.
public struct SavedCrop: Hashable, Sendable {
    /// The image's identity (SHA-256 of its bytes, hex).
    public var image: String
    /// The aspect it is for.
    public var aspect: AspectKey
    /// The crop, in pixels of the upright image.
    public var crop: PixelRect
    /// 1 when first saved, one more on every change.
    public var revision: Int
    /// When it was last saved.
    public var updated: Date

    /// Creates a saved crop.
    public init(image: String, aspect: AspectKey, crop: PixelRect, revision: Int, updated: Date) {
        self.image = image
        self.aspect = aspect
        self.crop = crop
        self.revision = revision
        self.updated = updated
    }
}

/// Where saved crops live: SQLite on one machine, PostgreSQL when replicas share them. Every
/// implementation passes the same tests (OverrideStoreTests).
public protocol OverrideStore: Sendable {
    /// Every crop saved for an image, by aspect.
    func overrides(image: String) async throws -> [SavedCrop]
    /// The crop saved for an image at an aspect, if any.
    func override(image: String, aspect: AspectKey) async throws -> SavedCrop?
    /// Saves a crop, one revision up.
    /// - Parameter expected: The revision the caller last saw (`If-Match`); 0 means "must not
    ///   exist yet"; nil saves whatever is there.
    /// - Returns: The saved crop, and whether it is new.
    /// - Throws: `ServerError` (`request.precondition_failed`) when `expected` is not current.
    func save(image: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool)
    /// Deletes a saved crop; false when there was none.
    /// - Throws: `ServerError` (`request.precondition_failed`) when `expected` is not current.
    func delete(image: String, aspect: AspectKey, expected: Int?) async throws -> Bool
}

/// A store's saved crops, as the pipeline asks for them: the crop whose aspect is within 1 % of
/// the request's ratio.
struct StoreOverrides: CropOverriding {
    let store: any OverrideStore

    func override(image id: String, ratio: Double) async throws -> CropOverride? {
        let saved = try await store.overrides(image: id)
        let near = saved.filter { abs($0.aspect.ratio - ratio) <= 0.01 * ratio }
            .min { abs($0.aspect.ratio - ratio) < abs($1.aspect.ratio - ratio) }
        return near.map { CropOverride(crop: $0.crop, revision: $0.revision) }
    }
}
