public import FocalCore

/// thumbor's `watermark(IMAGE,X,Y,ALPHA[,W_RATIO[,H_RATIO]])`: another image laid over the output
/// at X, Y (pixels from the left or top, negative from the right or bottom, `Np` percent of the
/// output, `center`, or `repeat` to tile it), ALPHA percent transparent (0 opaque, 100 invisible),
/// scaled (up or down, as thumbor's) to fit W_RATIO percent of the output's width and H_RATIO of
/// its height (`none` for no bound on one side). The image is a path under the root or a source the server allows,
/// read under the same limits as any input.
public struct Watermark: Hashable, Sendable, Encodable {
    /// Where the watermark goes on one axis.
    public enum Position: Hashable, Sendable, Encodable {
        /// Pixels from the left (top); negative: from the right (bottom).
        case pixels(Int)
        /// Percent of the output's side; negative: from the right (bottom).
        case percent(Int)
        case center
        /// Tiled across the output.
        case `repeat`

        init?(text: String) {
            switch text {
            case "center": self = .center
            case "repeat": self = .repeat
            default:
                let percent = text.hasSuffix("p")
                let number = percent ? String(text.dropLast()) : text
                let digits = number.hasPrefix("-") ? number.dropFirst() : Substring(number)
                guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(number) else { return nil }
                if percent {
                    guard abs(value) <= 100 else { return nil }
                    self = .percent(value)
                } else {
                    self = .pixels(value)
                }
            }
        }

        var text: String {
            switch self {
            case let .pixels(n): String(n)
            case let .percent(n): "\(n)p"
            case .center: "center"
            case .repeat: "repeat"
            }
        }
    }

    /// The watermark image, as the request names it.
    public var source: String
    /// Where it goes across and down.
    public var x, y: Position
    /// Percent transparent, 0-100.
    public var alpha: Int
    /// Its largest width and height, in percent of the output's; nil for no bound.
    public var widthRatio, heightRatio: Int?
    /// The SHA-256 of the watermark's bytes, once read (part of result keys, so that another
    /// image under the same name makes another result).
    public var contentID: String?

    /// The values `watermark` takes, for the documentation.
    public static let values =
        "an image (a path under the root, or a source the server allows; quoted when it holds a comma), X and Y (pixels, negative from the right or bottom, `Np` percent, `center` or `repeat`), the transparency 0-100, then optionally the largest width and height in percent of the output (`none`)"

    /// Reads `IMAGE,X,Y,ALPHA[,W_RATIO[,H_RATIO]]`.
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(text: String) throws(PlanningError) {
        var rest = Substring(text.trimmingSpaces)
        let source: String
        if rest.hasPrefix("'"), let close = rest.dropFirst().firstIndex(of: "'") {
            source = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            guard rest.hasPrefix(",") else { throw Self.refusal(text) }
            rest = rest.dropFirst()
        } else {
            guard let comma = rest.firstIndex(of: ",") else { throw Self.refusal(text) }
            source = String(rest[..<comma])
            rest = rest[rest.index(after: comma)...]
        }
        let parts = rest.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces.lowercased() }
        guard !source.isEmpty, source.count <= 1000, (3...5).contains(parts.count), let x = Position(text: parts[0]), let y = Position(text: parts[1]),
            parts[2].count <= 3, parts[2].allSatisfy({ ("0"..."9").contains($0) }), let alpha = Int(parts[2]), alpha <= 100
        else { throw Self.refusal(text) }
        func ratio(_ index: Int) throws(PlanningError) -> Int? {
            guard index < parts.count, parts[index] != "none" else { return nil }
            guard parts[index].count <= 3, parts[index].allSatisfy({ ("0"..."9").contains($0) }), let value = Int(parts[index]), (1...100).contains(value) else {
                throw Self.refusal(text)
            }
            return value
        }
        self.source = source
        self.x = x
        self.y = y
        self.alpha = alpha
        widthRatio = try ratio(3)
        heightRatio = try ratio(4)
    }

    static func refusal(_ text: String) -> PlanningError {
        .invalidOption("watermark '\(text.prefix(80))' must be \(values)")
    }

    /// The canonical text.
    public var text: String {
        let name = source.contains(",") ? "'\(source)'" : source
        var parts = [name, x.text, y.text, String(alpha)]
        if widthRatio != nil || heightRatio != nil {
            parts.append(widthRatio.map(String.init) ?? "none")
            parts.append(heightRatio.map(String.init) ?? "none")
        }
        return parts.joined(separator: ",")
    }

    /// The watermark's size on an output of `output`: its own, or with ratios scaled to fit the
    /// box they give, up as well as down, as thumbor's (never past the output itself, whose
    /// pixels bound what a mark may cost).
    public func size(of mark: PixelSize, on output: PixelSize) -> PixelSize {
        guard widthRatio != nil || heightRatio != nil else { return mark }
        let maxWidth = widthRatio.map { Double(output.width) * Double($0) / 100 } ?? Double(mark.width) * Double(output.height) * Double(heightRatio ?? 100) / 100 / Double(mark.height)
        let maxHeight = heightRatio.map { Double(output.height) * Double($0) / 100 } ?? Double(mark.height) * maxWidth / Double(mark.width)
        let (w, h) = (Double(mark.width), Double(mark.height))
        let scale = min(maxWidth / w, maxHeight / h, Double(output.width) / w, Double(output.height) / h)
        return PixelSize(
            width: Int(rounding: w * scale, within: 1...max(1, output.width)), height: Int(rounding: h * scale, within: 1...max(1, output.height)))
    }

    /// Where the watermark's top-left corners go on one axis of `length` for a mark of `side`
    /// (thumbor's placement: a repeat spreads whole copies evenly, at most 6 when it would
    /// take more than 100 in all).
    static func offsets(_ position: Position, length: Int, side: Int, manyOnOtherAxis: Bool) -> [Int] {
        switch position {
        case .center: return [(length - side) / 2]
        case let .pixels(n): return [n < 0 ? length - side + n : n]
        case let .percent(p):
            let n = Int(rounding: Double(length) * Double(abs(p)) / 100, within: 0...max(0, length))
            return [p < 0 ? length - side - n : n]
        case .repeat:
            var count = max(1, length / max(1, side))
            if manyOnOtherAxis { count = min(count, 6) }
            let space = count > 1 ? (length - count * side) / (count - 1) : 0
            return (0..<count).map { $0 * (side + space) }
        }
    }

    /// `image` with `mark` (at its size for this output) laid over it.
    /// - Throws: `ImagingError` when libvips fails.
    public func apply(_ mark: RenderedImage, to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let output = image.size
        let markSize = size(of: mark.size, on: output)
        let scaled = markSize == mark.size ? mark : try mark.resized(to: markSize)
        let overlay = try scaled.rgbaPixels()
        let base = try image.pixels()
        let across = max(1, output.width / max(1, markSize.width)), down = max(1, output.height / max(1, markSize.height))
        let many = across * down > 100
        let xs = Self.offsets(x, length: output.width, side: markSize.width, manyOnOtherAxis: many && y == .repeat)
        let ys = Self.offsets(y, length: output.height, side: markSize.height, manyOnOtherAxis: many && x == .repeat)
        let opacity = Double(100 - alpha) / 100
        var bytes = base.bytes
        OverlayPlacement.forEachCovered(xs: xs, ys: ys, side: markSize, output: output) { mark, out in
            let m = 4 * mark, o = 3 * out
            let a = Double(overlay[m + 3]) / 255 * opacity
            guard a > 0 else { return }
            for c in 0..<3 { bytes[o + c] = UInt8(clamping: Int((Double(overlay[m + c]) * a + Double(bytes[o + c]) * (1 - a)).rounded())) }
        }
        return try RenderedImage(pixels: PixelBuffer(unchecked: output.width, height: output.height, bytes: bytes))
    }
}
