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
    /// Its revision: one more than the last revision of this image and aspect on every save and
    /// delete, so never the same twice, even after a delete (see `OverrideStore`).
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
///
/// Revisions never repeat for an image and aspect: the first save is revision 1, and every save
/// and every delete takes the next one. A delete leaves a tombstone (a row marked deleted, never
/// read or listed) that keeps the counter, so a crop saved again after a delete continues from
/// there instead of starting over at 1. A writer holding a revision from before a delete (an
/// `If-Match` it read earlier) is therefore always refused, whatever happened in between, and a
/// cached result tagged with a revision never stands for another crop.
public protocol OverrideStore: Sendable {
    /// Every crop saved for an image, by aspect (deleted ones left out).
    func overrides(image: String) async throws -> [SavedCrop]
    /// The crop saved for an image at an aspect, if any (nil once deleted).
    func override(image: String, aspect: AspectKey) async throws -> SavedCrop?
    /// Saves a crop at the next revision of its image and aspect.
    /// - Parameter expected: The revision the caller last saw (`If-Match`); 0 means "must not
    ///   exist" (none saved, or deleted since); nil saves whatever is there.
    /// - Returns: The saved crop, and whether it is new (nothing was saved, or it was deleted).
    /// - Throws: `ServerError` (`request.precondition_failed`) when `expected` is not the current
    ///   revision of a saved crop (or, for 0, when one is saved).
    func save(image: String, aspect: AspectKey, crop: PixelRect, expected: Int?) async throws -> (SavedCrop, created: Bool)
    /// Deletes a saved crop, taking the next revision (see above); false when there was none.
    /// - Parameter expected: As for `save`: a revision other than 0 must be the current one of a
    ///   saved crop; 0 fails when one is saved, and otherwise there is nothing to delete.
    /// - Throws: `ServerError` (`request.precondition_failed`) when `expected` is not current.
    func delete(image: String, aspect: AspectKey, expected: Int?) async throws -> Bool
}
