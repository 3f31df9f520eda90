/// How large the crop is.
public enum Zoom: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// The largest crop of the target aspect that fits in the image (default).
    case fill
    /// Zoom in until the padded subjects fill `fraction` (0 < f ≤ 1) of the crop in the tighter
    /// direction, never below the output size in pixels nor beyond `fill`.
    case subject(Double)

    /// Parses `fill`, or a fraction `F` (also written `subject:F`).
    /// - Throws: `PlanningError.invalidOption` for anything else or a fraction outside (0, 1].
    public init(parsing text: String) throws(PlanningError) {
        let text = text.trimmingSpaces.lowercased()
        if text == "fill" {
            self = .fill
            return
        }
        let fraction = text.hasPrefix("subject:") ? String(text.dropFirst("subject:".count)) : text
        guard let f = Double(canonicalNumber: fraction) else {
            throw PlanningError.invalidOption("zoom '\(text)' must be 'fill' or a fraction F in (0, 1] (also written subject:F), e.g. 0.6")
        }
        self = .subject(f)
        try validate()
    }

    /// Checks the fraction is in (0, 1].
    public func validate() throws(PlanningError) {
        if case let .subject(f) = self, !(f > 0 && f <= 1) {
            throw PlanningError.invalidOption("zoom \(f.canonicalText) must be a fraction in (0, 1], e.g. 0.6")
        }
    }

    /// `fill` or the fraction, e.g. `0.6`: the canonical spelling every door prints.
    public var description: String {
        switch self {
        case .fill: "fill"
        case let .subject(f): f.canonicalText
        }
    }
}
