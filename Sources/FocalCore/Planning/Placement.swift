/// Where the kept subjects sit in a crop that holds them with room to spare (`placement(…)`,
/// `--placement`): Cloudinary's rule-of-thirds `g_auto`, imgproxy's `objects_position`.
///
/// On each axis where the crop is longer than the subjects' padded region, the subjects' centre
/// (a face's eyes, about 40 % down its box) goes where the placement says, as far as the region
/// stays whole in the crop and the crop in the image. Where it cannot reach, it stops at the
/// nearest place that keeps them whole: a placement never loses a subject.
public enum Placement: Hashable, Sendable, Encodable, CustomStringConvertible {
    /// The subjects' region centred (the default).
    case center
    /// The subjects' centre on the nearer third line across (the one on its side of the image),
    /// and a face's eyes on the upper third line down (other subjects on the nearer one).
    case thirds
    /// The subjects' centre at a point of the crop, in fractions of its width and height
    /// (0,0 top left; 0.5,0.5 the centre).
    case point(x: Double, y: Double)

    /// Reads `center` (or `centre`), `thirds`, or `X,Y` in fractions 0 to 1.
    /// - Throws: `PlanningError.invalidOption` naming what it takes.
    public init(text: String) throws(PlanningError) {
        let value = text.trimmingSpaces.lowercased()
        switch value {
        case "center", "centre": self = .center
        case "thirds": self = .thirds
        default:
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ $0.count <= 8 && $0.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } }),
                let x = Double(parts[0]), let y = Double(parts[1]), (0...1).contains(x), (0...1).contains(y)
            else {
                throw PlanningError.invalidOption("placement '\(text.prefix(40))' must be center, thirds, or X,Y in fractions of the crop (0 to 1: 0.33,0.5)")
            }
            self = .point(x: x, y: y)
        }
    }

    /// The canonical text: `center`, `thirds`, `0.33,0.5`.
    public var description: String {
        switch self {
        case .center: "center"
        case .thirds: "thirds"
        case let .point(x, y): "\(Self.spelled(x)),\(Self.spelled(y))"
        }
    }

    /// A fraction with at most three decimals and no trailing zeros.
    static func spelled(_ value: Double) -> String {
        let thousandths = Int(rounding: value * 1000, within: 0...1000)
        if thousandths % 1000 == 0 { return String(thousandths / 1000) }
        var digits = String(thousandths % 1000)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(thousandths / 1000).\(digits)"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Where a crop of `size` goes to hold `region` (the subjects' padded region, which fits it)
    /// with `subjects` placed as this placement says, inside `frame`'s image; and what it did on
    /// each axis (`thirds: left, upper`, `center`), for the plan.
    func place(size: PixelSize, holding region: Box, subjects: [Subject], frame: CropFrame) -> (PixelRect, String) {
        let centred = frame.place(size: size, centredOn: region)
        guard self != .center, !subjects.isEmpty else { return (centred, "center") }
        let boxes = subjects.map(\.box)
        let union = boxes.dropFirst().reduce(boxes[0]) { $0.union($1) }
        let faces = subjects.filter { $0.kind == .face || $0.kind == .head }.map(\.box)
        // The eyes of the faces, about 40 % down each box; else the subjects' centre.
        let anchorY = faces.isEmpty ? union.midY : faces.map { $0.y + 0.4 * $0.height }.reduce(0, +) / Double(faces.count)
        let anchorX = union.midX
        let w = Double(size.width), h = Double(size.height)
        /// The start on one axis putting `anchor` at `share` of `length`, as near as the region
        /// (from `low` to `high`) stays whole and the crop inside the image (`0...limit`).
        func start(_ anchor: Double, share: Double, length: Double, low: Double, high: Double, limit: Double) -> (Double, reached: Bool) {
            let wanted = anchor - share * length
            let lowest = max(high - length, 0), highest = min(low, limit)
            guard lowest <= highest else { return (wanted, false) }
            let placed = min(max(wanted, lowest), highest)
            return (placed, abs(placed - wanted) < 0.5)
        }
        let imageW = Double(frame.imageSize.width), imageH = Double(frame.imageSize.height)
        switch self {
        case let .point(fx, fy):
            let (x, _) = start(anchorX, share: fx, length: w, low: region.x, high: region.maxX, limit: imageW - w)
            let (y, _) = start(anchorY, share: fy, length: h, low: region.y, high: region.maxY, limit: imageH - h)
            return (frame.place(size: size, x: x, y: y), "point \(description)")
        default:
            /// The third line to use on one axis: the one on the anchor's side of the image
            /// (upper for eyes) when it can be reached, else the other, else the nearest place.
            func third(_ anchor: Double, length: Double, low: Double, high: Double, limit: Double, image: Double, eyes: Bool, names: (String, String))
                -> (Double, String)
            {
                guard high - low < length - 0.5 else { return (low - (length - (high - low)) / 2, "whole") }
                let first = eyes || anchor <= image / 2 ? (1.0 / 3, names.0) : (2.0 / 3, names.1)
                let other = first.0 < 0.5 ? (2.0 / 3, names.1) : (1.0 / 3, names.0)
                for (share, name) in eyes ? [first] : [first, other] {
                    let (placed, reached) = start(anchor, share: share, length: length, low: low, high: high, limit: limit)
                    if reached { return (placed, name) }
                }
                let (placed, _) = start(anchor, share: first.0, length: length, low: low, high: high, limit: limit)
                return (placed, "nearest " + first.1)
            }
            let (x, across) = third(anchorX, length: w, low: region.x, high: region.maxX, limit: imageW - w, image: imageW, eyes: false, names: ("left", "right"))
            let (y, down) = third(
                anchorY, length: h, low: region.y, high: region.maxY, limit: imageH - h, image: imageH, eyes: !faces.isEmpty, names: ("upper", "lower"))
            return (frame.place(size: size, x: x, y: y), "thirds: \(across), \(down)")
        }
    }
}
