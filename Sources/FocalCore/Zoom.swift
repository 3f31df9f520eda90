/// How large the crop is.
public enum Zoom: Hashable, Sendable, CustomStringConvertible {
    /// The largest crop of the target aspect that fits in the image (default).
    case fill
    /// Zoom in until the padded subjects fill `fraction` (0 < f ≤ 1) of the crop in the tighter
    /// direction, never below the output size in pixels nor beyond `fill`.
    case subject(Double)

    /// Parses `fill` or `subject:F`.
    /// - Throws: `PlanningError.invalidOption` for anything else or a fraction outside (0, 1].
    public init(parsing text: String) throws(PlanningError) {
        if text == "fill" {
            self = .fill
            return
        }
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0] == "subject", let f = Double(parts[1]) else {
            throw PlanningError.invalidOption("zoom '\(text)' must be 'fill' or 'subject:F' with F in (0, 1], e.g. subject:0.6")
        }
        self = .subject(f)
        try validate()
    }

    /// Checks the fraction is in (0, 1].
    public func validate() throws(PlanningError) {
        if case let .subject(f) = self, !(f > 0 && f <= 1) {
            throw PlanningError.invalidOption("zoom subject fraction \(f) must be in (0, 1]")
        }
    }

    public var description: String {
        switch self {
        case .fill: "fill"
        case let .subject(f): "subject:\(f)"
        }
    }
}
