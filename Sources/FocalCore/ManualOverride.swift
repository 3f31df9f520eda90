/// A choice a person made that replaces detection.
public enum ManualOverride: Hashable, Sendable, Encodable {
    /// Centre the crop on this point (pixels of the oriented image), then keep it inside.
    case focus(x: Double, y: Double)
    /// Build the crop around this rectangle (pixels of the oriented image).
    case region(PixelRect)
    /// Centre the crop on this point given as fractions of the image's width and height (0...1;
    /// 0, 0 is the top left), then keep it inside: alignments such as "top left" or "bottom".
    case relativeFocus(x: Double, y: Double)

    /// Parses `X,Y` as a focus point or `LxT:RxB` (thumbor's `focal()`: left, top, right, bottom)
    /// as a region, in pixels of the upright image, each from 0 up to a billion.
    /// - Throws: `PlanningError.invalidOption` unless it is one of these.
    public init(parsingFocus text: String) throws(PlanningError) {
        let text = text.filter { $0 != " " }
        if text.contains(":") {
            let corners = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
                .map { $0.split(separator: "x", omittingEmptySubsequences: false).map { Self.coordinate($0) } }
            guard corners.count == 2, corners.allSatisfy({ $0.count == 2 }),
                let left = corners[0][0], let top = corners[0][1], let right = corners[1][0], let bottom = corners[1][1]
            else {
                throw PlanningError.invalidOption("focus '\(text)' must be a point X,Y or a region LxT:RxB in pixels, e.g. 320,180 or 100x50:420x290")
            }
            // Each coordinate is under a billion (`coordinate`), kept so before it is converted.
            let range = 0...Self.coordinateLimit
            let (x, y) = (Int(rounding: left.rounded(.down), within: range), Int(rounding: top.rounded(.down), within: range))
            let (r, b) = (Int(rounding: right.rounded(.up), within: range), Int(rounding: bottom.rounded(.up), within: range))
            guard r > x, b > y else {
                throw PlanningError.invalidOption("focus region '\(text)' must have its right-bottom corner past its left-top one")
            }
            self = .region(PixelRect(x: x, y: y, width: r - x, height: b - y))
            return
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Self.coordinate($0) }
        guard parts.count == 2, let x = parts[0], let y = parts[1] else {
            throw PlanningError.invalidOption("focus '\(text)' must be a point X,Y or a region LxT:RxB in pixels, e.g. 320,180 or 100x50:420x290")
        }
        self = .focus(x: x, y: y)
    }

    /// The largest coordinate a focus may give.
    private static let coordinateLimit = 1_000_000_000

    /// A coordinate: a number from 0 up to a billion.
    private static func coordinate(_ text: Substring) -> Double? {
        guard let value = Double(canonicalNumber: String(text)), value >= 0, value < Double(coordinateLimit) else { return nil }
        return value
    }

    /// `X,Y` for a point and `LxT:RxB` for a region, the spellings `init(parsingFocus:)` reads;
    /// nil for a relative focus, which only a URL's alignment words give.
    public var focusText: String? {
        switch self {
        case let .focus(x, y): "\(x.canonicalText),\(y.canonicalText)"
        case let .region(r): "\(r.x)x\(r.y):\(r.x + r.width)x\(r.y + r.height)"
        case .relativeFocus: nil
        }
    }
}
