/// Why a crop could not be planned.
public enum PlanningError: FocalError, Hashable {
    /// The target size or aspect is not usable; the text says why.
    case invalidTarget(String)
    /// The image has no pixels.
    case emptyImage(PixelSize)
    /// An option is out of range; the text names it and its range.
    case invalidOption(String)

    public var code: ErrorCode {
        switch self {
        case .invalidTarget, .invalidOption: .requestInvalid
        case .emptyImage: .inputCorrupt
        }
    }

    /// The same as `description`: planning messages name only values the request carried.
    public var publicMessage: String { description }

    public var description: String {
        switch self {
        case let .invalidTarget(why): "invalid target: \(why)"
        case let .emptyImage(size): "the image is empty (\(size)); nothing to crop"
        case let .invalidOption(why): "invalid option: \(why)"
        }
    }
}
