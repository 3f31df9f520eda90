/// A choice a person made that replaces detection.
public enum ManualOverride: Hashable, Sendable, Encodable {
    /// Centre the crop on this point (pixels of the oriented image), then keep it inside.
    case focus(x: Double, y: Double)
    /// Build the crop around this rectangle (pixels of the oriented image).
    case region(PixelRect)
    /// Centre the crop on this point given as fractions of the image's width and height (0...1;
    /// 0, 0 is the top left), then keep it inside: alignments such as "top left" or "bottom".
    case relativeFocus(x: Double, y: Double)
    /// Build the crop around this rectangle given as fractions of the image's width and height
    /// (0...1): a region chosen on a thumbnail, applied to the original.
    case relativeRegion(Box)

    /// Parses `X,Y` as a focus point or `LxT:RxB` (thumbor's `focal()`: left, top, right, bottom)
    /// as a region, in pixels of the upright image, each from 0 up to a billion; or, as imagor
    /// reads values under 1, as fractions of the image when every value is at most 1 and one is
    /// written with a decimal point (`0.5,0.3`, `0.25x0.1:0.6x0.5`; `1,1` is a pixel).
    /// - Throws: `PlanningError.invalidOption` unless it is one of these.
    public init(parsingFocus text: String) throws(PlanningError) {
        let text = text.filter { $0 != " " }.lowercased()
        let numbers = text.split { $0 == ":" || $0 == "x" || $0 == "," }.map { Self.coordinate($0) }
        let fractions = !numbers.isEmpty && numbers.allSatisfy { ($0 ?? 2) <= 1 } && text.contains(".")
        let unit = fractions ? "in fractions of the image, e.g. 0.5,0.3 or 0.25x0.1:0.6x0.5" : "in pixels, e.g. 320,180 or 100x50:420x290"
        let invalid = PlanningError.invalidOption("focus '\(text)' must be a point X,Y or a region LxT:RxB \(unit)")
        let backwards = PlanningError.invalidOption("focus region '\(text)' must have its right-bottom corner past its left-top one")
        if text.contains(":") {
            let corners = text.split(separator: ":", omittingEmptySubsequences: false)
                .map { $0.split(separator: "x", omittingEmptySubsequences: false).map { Self.coordinate($0) } }
            guard corners.count == 2, corners.allSatisfy({ $0.count == 2 }),
                let left = corners[0][0], let top = corners[0][1], let right = corners[1][0], let bottom = corners[1][1]
            else { throw invalid }
            if fractions {
                guard right > left, bottom > top else { throw backwards }
                self = .relativeRegion(Box(x: left, y: top, width: right - left, height: bottom - top))
                return
            }
            // Each coordinate is under a billion (`coordinate`), kept so before it is converted.
            let range = 0...Self.coordinateLimit
            let (x, y) = (Int(rounding: left.rounded(.down), within: range), Int(rounding: top.rounded(.down), within: range))
            let (r, b) = (Int(rounding: right.rounded(.up), within: range), Int(rounding: bottom.rounded(.up), within: range))
            guard r > x, b > y else { throw backwards }
            self = .region(PixelRect(x: x, y: y, width: r - x, height: b - y))
            return
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Self.coordinate($0) }
        guard parts.count == 2, let x = parts[0], let y = parts[1] else { throw invalid }
        self = fractions ? .relativeFocus(x: x, y: y) : .focus(x: x, y: y)
    }

    /// A fraction as `focusText` writes it: always with a decimal point, so that it reads back as one.
    private static func fraction(_ value: Double) -> String {
        let text = value.canonicalText
        return text.contains(".") ? text : text + ".0"
    }

    /// The largest coordinate a focus may give.
    private static let coordinateLimit = 1_000_000_000

    /// A coordinate: a number from 0 up to a billion.
    private static func coordinate(_ text: Substring) -> Double? {
        guard let value = Double(canonicalNumber: String(text)), value >= 0, value < Double(coordinateLimit) else { return nil }
        return value
    }

    /// `X,Y` for a point and `LxT:RxB` for a region, the spellings `init(parsingFocus:)` reads
    /// (fractions with a decimal point).
    public var focusText: String? {
        switch self {
        case let .focus(x, y): "\(x.canonicalText),\(y.canonicalText)"
        case let .region(r): "\(r.x)x\(r.y):\(r.x + r.width)x\(r.y + r.height)"
        case let .relativeFocus(x, y): "\(Self.fraction(x)),\(Self.fraction(y))"
        case let .relativeRegion(b): "\(Self.fraction(b.x))x\(Self.fraction(b.y)):\(Self.fraction(b.maxX))x\(Self.fraction(b.maxY))"
        }
    }
}
