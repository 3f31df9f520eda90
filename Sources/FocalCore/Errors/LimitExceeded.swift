/// An input or a request beyond one of the `ImageLimits`: it names the limit, what it allows and
/// what was asked.
public struct LimitExceeded: FocalError, Hashable {
    /// `input.too_large`, `input.too_many_pixels`, `input.extreme_aspect`, `input.too_costly`,
    /// `input.too_many_frames`, `input.timeout`, `output.too_large` or `request.invalid`.
    public let code: ErrorCode
    /// The limit's name in `ImageLimits`, e.g. `maxOutputSide`.
    public let limit: String
    /// What the limit allows, with its unit: "8192 px".
    public let allowed: String
    /// What the input or request has or asks for: "100000x100000".
    public let actual: String
    /// The input's name, when known; it appears in `description`, never in `publicMessage`.
    public var source: String?

    /// Creates the error.
    public init(_ code: ErrorCode, limit: String, allowed: String, actual: String, source: String? = nil) {
        self.code = code
        self.limit = limit
        self.allowed = allowed
        self.actual = actual
        self.source = source
    }

    /// The same error naming `source`.
    public func naming(_ source: String) -> LimitExceeded {
        var copy = self
        copy.source = source
        return copy
    }

    private var what: String {
        switch code {
        case .inputTooLarge: "the input is too large"
        case .inputTooManyPixels: "the image has too many pixels"
        case .inputExtremeAspect: "the image is too narrow for its length"
        case .inputTooCostly: "decoding the image would cost too much"
        case .inputTooManyFrames: "the animation is too long to animate"
        case .inputTimeout: "working on the image took too long"
        case .outputTooLarge: "the output asked for is too large"
        default: "a limit was exceeded"
        }
    }

    public var publicMessage: String { "\(what): \(actual), over the limit \(limit) of \(allowed)" }

    public var description: String {
        (source.map { "\($0.oneLine): " } ?? "") + publicMessage + "; the limits are in ImageLimits (docs/limits.md)"
    }
}
