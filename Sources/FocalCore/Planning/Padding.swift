/// Room added around each subject before the crop is placed.
public enum Padding: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// A fraction of each subject's own width (left and right) and height (top and bottom).
    case fraction(Double)
    /// A fixed number of pixels on every side.
    case pixels(Double)

    /// The default: 10 % of each subject's size on every side.
    public static let `default` = Padding.fraction(0.1)

    /// Parses `0.2` (a fraction) or `24px` (pixels).
    /// - Throws: `PlanningError.invalidOption` for anything else or a negative value.
    public init(parsing text: String) throws(PlanningError) {
        let trimmed = text.trimmingSpaces.lowercased()
        if trimmed.hasSuffix("px"), let value = Double(canonicalNumber: String(trimmed.dropLast(2))) {
            self = .pixels(value)
        } else if let value = Double(canonicalNumber: trimmed) {
            self = .fraction(value)
        } else {
            throw PlanningError.invalidOption("padding '\(text)' must be a fraction like 0.2 or pixels like 24px")
        }
        try validate()
    }

    /// Checks the value is finite, non-negative and not absurd.
    public func validate() throws(PlanningError) {
        switch self {
        case let .fraction(f) where !(f.isFinite && f >= 0 && f <= 10):
            throw PlanningError.invalidOption("padding fraction \(f) must be between 0 and 10")
        case let .pixels(p) where !(p.isFinite && p >= 0):
            throw PlanningError.invalidOption("padding \(p)px must be zero or more")
        default: break
        }
    }

    /// The padding multiplied by `factor`.
    func scaled(by factor: Double) -> Padding {
        switch self {
        case let .fraction(f): .fraction(f * factor)
        case let .pixels(p): .pixels(p * factor)
        }
    }

    /// Grows `box` by this padding, plus `headroom` × its height above it.
    func apply(to box: Box, headroom: Double) -> Box {
        let dx: Double, dy: Double
        switch self {
        case let .fraction(f): (dx, dy) = (box.width * f, box.height * f)
        case let .pixels(p): (dx, dy) = (p, p)
        }
        let top = dy + box.height * headroom
        return Box(x: box.x - dx, y: box.y - top, width: box.width + 2 * dx, height: box.height + top + dy)
    }

    /// `0.1` or `24px`: the canonical spelling every door prints.
    public var description: String {
        switch self {
        case let .fraction(f): f.canonicalText
        case let .pixels(p): "\(p.canonicalText)px"
        }
    }
}
