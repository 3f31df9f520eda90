import Foundation

/// Where an image comes from.
public enum ImageInput: Hashable, Sendable, CustomStringConvertible {
    /// A file on disk.
    case file(String)
    /// Encoded bytes; `name` labels messages (a file name or URL).
    case data(Data, name: String)

    public var description: String {
        switch self {
        case let .file(path): path
        case let .data(_, name): name
        }
    }

    /// Opens the header, checking the limits.
    func open(limits: ImageLimits) throws(ImagingError) -> SourceImage {
        switch self {
        case let .file(path): try SourceImage.open(path: path, limits: limits)
        case let .data(data, name): try SourceImage.open(data: data, name: name, limits: limits)
        }
    }
}
