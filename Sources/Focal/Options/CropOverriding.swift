public import FocalCore
public import Foundation

/// A crop a person chose for one image at one aspect ratio, that wins over the automatic one.
public struct CropOverride: Hashable, Sendable {
    /// The crop, in pixels of the upright image.
    public var crop: PixelRect
    /// Increases on every change; part of every result key, so no cache serves an older crop.
    public var revision: Int

    /// The aspect ratio it was saved for, when the store tells (as `CropTarget.aspect`).
    public var aspect: CropTarget?
    /// When it was last saved, when the store tells.
    public var updated: Date?

    /// Creates an override.
    public init(crop: PixelRect, revision: Int, aspect: CropTarget? = nil, updated: Date? = nil) {
        self.crop = crop
        self.revision = revision
        self.aspect = aspect
        self.updated = updated
    }
}

/// Where a pipeline finds the crops people saved. A crop request that would detect subjects
/// (detection on, no manual override of its own) for an image identified by content asks for
/// the saved crop at its aspect, and uses it when there is one (strategy `manual`).
public protocol CropOverriding: Sendable {
    /// The crop saved for the image with this content ID (SHA-256, hex) at an aspect ratio within
    /// 1 % of `ratio`, if any.
    /// - Throws: `SavedCropsUnavailable` when the store cannot answer now (down, stalled, its
    ///   deadline passed): the crop is then made as if nothing were saved, marked
    ///   (`CropResult.savedCropsUnknown`) and cached nowhere. Any other error fails the request.
    func override(image id: String, ratio: Double) async throws -> CropOverride?
}

/// A store of saved crops cannot answer now: a crop goes on without them, marked as such.
public struct SavedCropsUnavailable: Error, Sendable, CustomStringConvertible {
    /// Why, for logs.
    public var reason: String

    /// Creates the error.
    public init(reason: String) { self.reason = reason }

    public var description: String { "saved crops are unavailable: \(reason)" }
}
