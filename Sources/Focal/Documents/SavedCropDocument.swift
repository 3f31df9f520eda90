public import Foundation

/// A saved crop: `{"image", "aspect", "revision", "crop", "updated"}` (`aspect` written `16x9`,
/// `updated` in ISO 8601).
public struct SavedCropDocument: Encodable, Sendable {
    public let image: String
    public let aspect: String
    public let revision: Int
    public let crop: PixelRectDocument
    public let updated: String

    /// A saved crop of image `image` (its SHA-256, hex).
    public init(image: String, saved: CropOverride) {
        self.image = image
        if case let .aspect(w, h)? = saved.aspect { aspect = "\(w)x\(h)" } else { aspect = "" }
        revision = saved.revision
        crop = PixelRectDocument(saved.crop)
        updated = saved.updated.map { ISO8601DateFormatter().string(from: $0) } ?? ""
    }
}
