/// An output encoding.
public enum ImageFormat: String, Hashable, Sendable, Codable, CaseIterable {
    /// JPEG, alpha flattened on white.
    case jpeg
    /// PNG, lossless.
    case png
    /// WebP, lossy at the given quality.
    case webp

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// The media type.
    public var mediaType: String { "image/\(rawValue)" }

    /// The format a file extension names (`jpg`, `jpeg`, `png`, `webp`), if any.
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        default: return nil
        }
    }
}
