public import FocalCore
import Foundation

/// imagor's `label(TEXT,X,Y,SIZE,COLOUR[,ALPHA[,FONT]])`: one line of text written on the output,
/// in a font Debian installs (DejaVu: `sans`, `serif`, `monospace`), placed as a watermark is.
/// The text is percent-encoded where it holds a comma, a parenthesis or a space (`Hello%2C%20world`):
/// it is decoded here, whatever the door.
public struct Label: Effect {
    public static let name = "label"
    public static let values =
        "the text (percent-encoded: `%2C` for a comma; at most 200 characters), X (pixels, negative from the right, `Np` percent, `left`, `center`, `right`), Y (the same with `top` and `bottom`), the size in pixels (1 to 500), a colour (ff0000 or red), then optionally the percent transparent (0 to 100) and a font family (`sans`, `serif`, `monospace` or another installed one)"
    public static let summary = "writes one line of text on the output (imagor's label), placed as a watermark"
    public static let examples = ["Focal,10,10,24,ffffff", "Hello%20world,center,-10,30,000000,50,serif"]
    public static let previewed = false

    /// The most characters a label holds, and the most its size squared times its characters
    /// (the pixels its mask may cover: 200 characters at 280 px, 64 at 500).
    public static let maxCharacters = 200, maxCoverage = 16_000_000

    /// Where the label goes on one axis.
    public enum Anchor: Hashable, Sendable {
        /// Pixels from the left (top); negative: from the right (bottom).
        case pixels(Int)
        /// Percent of the output's side; negative: from the right (bottom).
        case percent(Int)
        case center
        /// Against the right (bottom) edge.
        case end
    }

    /// The text, decoded.
    public let text: String
    /// Where it goes across and down.
    public let x, y: Anchor
    /// Its size in pixels.
    public let size: Int
    /// Its colour.
    public let colour: RGBColour
    /// Percent transparent, 0-100.
    public let alpha: Int
    /// The font family, lower case.
    public let font: String

    public init(arguments: String) throws(PlanningError) {
        let given = try EffectArguments(arguments, filter: Self.name, takes: Self.values, counts: 5...7)
        guard let written = given.text(0), let text = written.removingPercentEncoding, !text.isEmpty else {
            throw given.refusal("'\(given.text(0) ?? "")' (the text, percent-encoded, goes first)")
        }
        guard text.count <= Self.maxCharacters, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw given.refusal("a text of \(text.count) characters (at most \(Self.maxCharacters), on one line)")
        }
        self.text = text
        x = try Self.anchor(given, 1, start: "left", end: "right")
        y = try Self.anchor(given, 2, start: "top", end: "bottom")
        size = try given.integer(3, in: 1...500)
        let (cost, overflow) = (size * size).multipliedReportingOverflow(by: text.count)
        guard !overflow, cost <= Self.maxCoverage else {
            throw given.refusal("\(text.count) characters at \(size) px (characters × size² at most \(Self.maxCoverage))")
        }
        colour = try given.colour(4)
        alpha = try given.integer(5, in: 0...100, or: 0)
        let family = (given.text(6) ?? "sans").lowercased()
        guard !family.isEmpty, family.count <= 40, family.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " " || $0 == "-") }) else {
            throw given.refusal("the font '\(family.prefix(40))' (a family name of letters, digits, spaces and hyphens)")
        }
        font = family
    }

    private static func anchor(_ given: EffectArguments, _ index: Int, start: String, end: String) throws(PlanningError) -> Anchor {
        let text = (given.text(index) ?? "").lowercased()
        switch text {
        case start: return .pixels(0)
        case end: return .end
        case "center": return .center
        default:
            let percent = text.hasSuffix("p")
            let number = percent ? String(text.dropLast()) : text
            let digits = number.hasPrefix("-") ? number.dropFirst() : Substring(number)
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(number), !percent || abs(value) <= 100
            else { throw given.refusal("'\(text.prefix(20))' (pixels, `Np`, \(start), center or \(end) goes there)") }
            return percent ? .percent(value) : .pixels(value)
        }
    }

    public var arguments: String {
        func spelled(_ anchor: Anchor, end: String) -> String {
            switch anchor {
            case let .pixels(n): String(n)
            case let .percent(n): "\(n)p"
            case .center: "center"
            case .end: end
            }
        }
        var parts = [Self.encoded(text), spelled(x, end: "right"), spelled(y, end: "bottom"), String(size), colour.hex]
        if alpha != 0 || font != "sans" { parts.append(String(alpha)) }
        if font != "sans" { parts.append(font) }
        return parts.joined(separator: ",")
    }

    /// The text percent-encoded but for RFC 3986's unreserved characters: one spelling, safe in
    /// any door's argument list.
    static func encoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let unreserved = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte)
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Where the label's top-left corner goes on one axis of `length` for a label of `side`.
    static func offset(_ anchor: Anchor, length: Int, side: Int) -> Int {
        switch anchor {
        case .center: (length - side) / 2
        case .end: length - side
        case let .pixels(n): n < 0 ? length - side + n : n
        case let .percent(p):
            p < 0
                ? length - side - Int(rounding: Double(length) * Double(-p) / 100, within: 0...max(0, length))
                : Int(rounding: Double(length) * Double(p) / 100, within: 0...max(0, length))
        }
    }

    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let mask = try TextMask.render(text, family: font, points: size)
        let base = try image.pixels()
        let output = image.size
        let side = PixelSize(width: mask.width, height: mask.height)
        let left = Self.offset(x, length: output.width, side: side.width), top = Self.offset(y, length: output.height, side: side.height)
        let opacity = Double(100 - alpha) / 100
        let fill = [Double(colour.red), Double(colour.green), Double(colour.blue)]
        var bytes = base.bytes
        OverlayPlacement.forEachCovered(xs: [left], ys: [top], side: side, output: output) { inMask, out in
            let a = Double(mask.coverage[inMask]) / 255 * opacity
            guard a > 0 else { return }
            let o = 3 * out
            for c in 0..<3 { bytes[o + c] = UInt8(clamping: Int((fill[c] * a + Double(bytes[o + c]) * (1 - a)).rounded())) }
        }
        return try RenderedImage(pixels: PixelBuffer(unchecked: output.width, height: output.height, bytes: bytes))
    }
}
