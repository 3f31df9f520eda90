/// The frame a crop must fill: an exact output size, or an aspect ratio at the image's resolution.
public enum CropTarget: Hashable, Sendable, CustomStringConvertible {
    /// An output of exactly `width` × `height` pixels.
    case size(width: Int, height: Int)
    /// The largest crop of aspect `width`:`height`, not resized.
    case aspect(width: Int, height: Int)

    /// Width divided by height.
    public var ratio: Double {
        switch self {
        case let .size(w, h), let .aspect(w, h): Double(w) / Double(h)
        }
    }

    /// The pair of numbers that define the target.
    var terms: (Int, Int) {
        switch self {
        case let .size(w, h), let .aspect(w, h): (w, h)
        }
    }

    /// Parses `WxH` as a size or `A:B` as an aspect ratio.
    /// - Throws: `PlanningError.invalidTarget` when the text is neither, or a number is not positive.
    public init(parsing text: String) throws(PlanningError) {
        let isAspect = text.contains(":")
        let parts = text.lowercased().split(separator: isAspect ? ":" : "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]) else {
            throw PlanningError.invalidTarget("'\(text)' is neither a size like 400x300 nor an aspect like 16:9")
        }
        self = isAspect ? .aspect(width: a, height: b) : .size(width: a, height: b)
        try validate()
    }

    /// Parses an aspect ratio written `A:B`, `AxB` or `A/B` (every door takes all three; `A:B` is
    /// the one printed).
    /// - Throws: `PlanningError.invalidTarget` unless it is two positive whole numbers.
    public init(parsingAspect text: String) throws(PlanningError) {
        let parts = text.trimmingSpaces.lowercased().split(omittingEmptySubsequences: false, whereSeparator: { $0 == ":" || $0 == "x" || $0 == "/" })
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy({ ("0"..."9").contains($0) }) }),
            let a = Int(parts[0]), let b = Int(parts[1])
        else {
            throw PlanningError.invalidTarget("aspect '\(text)' must be two positive whole numbers A:B, e.g. 16:9 (also written 16x9 or 16/9)")
        }
        self = .aspect(width: a, height: b)
        try validate()
    }

    /// Checks that both numbers are positive and not absurdly large.
    public func validate() throws(PlanningError) {
        let (a, b) = terms
        guard a > 0, b > 0 else { throw PlanningError.invalidTarget("\(self): both numbers must be positive") }
        guard a <= 100_000, b <= 100_000 else {
            throw PlanningError.invalidTarget("\(self): numbers above 100000 are not supported")
        }
    }

    public var description: String {
        switch self {
        case let .size(w, h): "\(w)x\(h)"
        case let .aspect(w, h): "\(w):\(h)"
        }
    }
}
