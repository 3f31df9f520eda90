public import FocalCore
import Foundation

/// imagor's `image(IMAGE,X,Y[,ALPHA[,BLEND]])`: another image composited over the output at X, Y,
/// ALPHA percent transparent (0 opaque, 100 invisible), in a blend mode (`normal` by default).
///
/// - X across: pixels from the left (negative: from the right), `Np` percent of the output's width,
///   a fraction 0-1 with a decimal point (`0.5` centres it), `left`/`l`, `right`/`r`, `center`, an
///   edge with an inward offset (`left-20`, `r-10`), or `repeat` to tile it.
/// - Y down: the same with `top`/`t` and `bottom`/`b`.
/// - BLEND: `normal`, `multiply`, `screen`, `overlay`, `darken`, `lighten`, `color-dodge`,
///   `color-burn`, `hard-light`, `soft-light`, `difference`, `exclusion` or `add` (as CSS and
///   imagor define them).
///
/// The image is a path under the root or a source the server allows, read under the same limits
/// as any input, laid at its own size (at most the output's). imagor's nested paths with their own
/// transformations (`/200x200/filters:…/photo.jpg`) are not read: size the overlay beforehand.
public struct ImageOverlay: Hashable, Sendable, Encodable, OverlayOption {
    /// Where the image goes on one axis.
    public enum Placement: Hashable, Sendable, Encodable {
        /// Pixels from the start (left, top); negative: from the end.
        case pixels(Int)
        /// Percent of the output's side; negative: from the end.
        case percent(Int)
        /// A fraction of the room left (0: the start, 0.5: the centre, 1: the end).
        case fraction(Double)
        /// At the start edge, that many pixels in.
        case start(Int)
        /// At the end edge, that many pixels in.
        case end(Int)
        case center
        /// Tiled across the output.
        case `repeat`
    }

    /// How the image's colours combine with the output's.
    public enum BlendMode: String, CaseIterable, Hashable, Sendable, Encodable {
        case normal, multiply, screen, overlay, darken, lighten
        case colorDodge = "color-dodge"
        case colorBurn = "color-burn"
        case hardLight = "hard-light"
        case softLight = "soft-light"
        case difference, exclusion, add
    }

    /// The image, as the request names it.
    public var source: String
    /// Where it goes across and down.
    public var x, y: Placement
    /// Percent transparent, 0-100.
    public var alpha: Int
    /// The blend mode.
    public var blend: BlendMode
    /// The SHA-256 of the image's bytes, once read (part of result keys).
    public var contentID: String?

    /// The values `image` takes, for the documentation.
    public static let values =
        "an image (a path under the root, or a source the server allows; quoted when it holds a comma), X and Y (pixels, negative from the right or bottom, `Np` percent, a fraction such as `0.5`, `left`, `right`, `top`, `bottom`, `center`, an edge with an offset such as `right-10`, or `repeat`), then optionally the transparency 0-100 and a blend mode (`normal`, `multiply`, `screen`, `overlay`, `darken`, `lighten`, `color-dodge`, `color-burn`, `hard-light`, `soft-light`, `difference`, `exclusion`, `add`)"

    /// The most tiles of a `repeat` on one axis.
    static let maxTiles = 64

    /// Reads `IMAGE,X,Y[,ALPHA[,BLEND]]`.
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(text: String) throws(PlanningError) {
        var rest = text.trimmingSpaces
        let name: String
        if rest.hasPrefix("'"), let end = rest.dropFirst().firstIndex(of: "'") {
            name = String(rest[rest.index(after: rest.startIndex)..<end])
            rest = String(rest[rest.index(after: end)...])
            guard rest.isEmpty || rest.hasPrefix(",") else { throw Self.invalid(text, "the quoted image must be followed by a comma") }
            rest = String(rest.dropFirst())
        } else {
            guard let comma = rest.firstIndex(of: ",") else { throw Self.invalid(text, "give the image, then X and Y") }
            name = String(rest[..<comma])
            rest = String(rest[rest.index(after: comma)...])
        }
        guard !name.isEmpty, name.utf8.count <= 1000 else { throw Self.invalid(text, "the image is empty or longer than 1000 characters") }
        guard !Self.looksNested(name) else {
            throw Self.invalid(text, "nested paths with their own transformations are not read here: name the image itself")
        }
        let parts = rest.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count >= 2, parts.count <= 4 else { throw Self.invalid(text, "give the image, X and Y, then optionally the transparency and a blend mode") }
        guard let x = Self.placement(parts[0], start: ["left", "l"], end: ["right", "r"]) else {
            throw Self.invalid(text, "X '\(parts[0].excerpt(40))' is not pixels, Np, a fraction, left, right, center, an edge with an offset or repeat")
        }
        guard let y = Self.placement(parts[1], start: ["top", "t"], end: ["bottom", "b"]) else {
            throw Self.invalid(text, "Y '\(parts[1].excerpt(40))' is not pixels, Np, a fraction, top, bottom, center, an edge with an offset or repeat")
        }
        var alpha = 0
        if parts.count > 2, !parts[2].isEmpty {
            guard let value = Int(parts[2]), (0...100).contains(value) else { throw Self.invalid(text, "the transparency must be 0 to 100") }
            alpha = value
        }
        var blend = BlendMode.normal
        if parts.count > 3, !parts[3].isEmpty {
            guard let mode = BlendMode(rawValue: parts[3].lowercased()) else {
                throw Self.invalid(text, "blend mode '\(parts[3].excerpt(40))' is not one of \(BlendMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            blend = mode
        }
        self.init(source: name, x: x, y: y, alpha: alpha, blend: blend)
    }

    /// An overlay of `source` at `x`, `y`.
    public init(source: String, x: Placement, y: Placement, alpha: Int = 0, blend: BlendMode = .normal) {
        self.source = source
        self.x = x
        self.y = y
        self.alpha = min(100, max(0, alpha))
        self.blend = blend
    }

    private static func invalid(_ text: String, _ why: String) -> PlanningError {
        PlanningError.invalidOption("image (the overlay option) '\(text.excerpt(80))': \(why)")
    }

    /// Whether `name` is an imagor path with transformations (`/200x200/…`, `/fit-in/…`,
    /// `/filters:…/…`) rather than an image: an absolute file path is an image.
    static func looksNested(_ name: String) -> Bool {
        guard name.hasPrefix("/") else { return false }
        var segments = name.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.first == "unsafe" { segments.removeFirst() }
        guard let first = segments.first?.lowercased() else { return false }
        let sizing = first.split(separator: "x", omittingEmptySubsequences: false)
        let isSize = sizing.count == 2 && sizing.allSatisfy { side in
            let digits = side.hasPrefix("-") ? side.dropFirst() : side[...]
            return digits.allSatisfy(\.isNumber) || ["f", "full", "orig"].contains(String(digits)) || digits.hasPrefix("f-") || digits.hasPrefix("full-")
        }
        return isSize || first.hasSuffix("fit-in") || first.hasPrefix("filters:") || first.hasPrefix("trim") || first == "smart" || first == "meta"
            || name.contains("/filters:")
    }

    /// One axis's placement, or nil.
    static func placement(_ text: String, start: [String], end: [String]) -> Placement? {
        let lowered = text.lowercased()
        if lowered == "center" || lowered == "centre" { return .center }
        if lowered == "repeat" { return .repeat }
        for (names, make) in [(start, Placement.start), (end, Placement.end)] {
            for name in names.sorted(by: { $0.count > $1.count }) where lowered.hasPrefix(name) {
                let tail = lowered.dropFirst(name.count)
                if tail.isEmpty { return make(0) }
                guard tail.hasPrefix("-"), let offset = Int(tail.dropFirst()), (0...100_000).contains(offset) else { return nil }
                return make(offset)
            }
        }
        if lowered.hasSuffix("p"), let value = Int(lowered.dropLast()), abs(value) <= 100 { return .percent(value) }
        if lowered.contains("."), let value = Double(lowered), value >= 0, value <= 1 { return .fraction(value) }
        if let value = Int(lowered), abs(value) <= 100_000 { return .pixels(value) }
        return nil
    }

    /// The canonical text.
    public var text: String {
        let name = source.contains(",") ? "'\(source)'" : source
        // imagor's own spelling: the transparency only when it is not 0 or a blend mode follows.
        var parts = [name, Self.text(x, start: "left", end: "right"), Self.text(y, start: "top", end: "bottom")]
        if alpha != 0 || blend != .normal { parts.append(String(alpha)) }
        if blend != .normal { parts.append(blend.rawValue) }
        return parts.joined(separator: ",")
    }

    private static func text(_ placement: Placement, start: String, end: String) -> String {
        switch placement {
        case let .pixels(n): String(n)
        case let .percent(n): "\(n)p"
        case let .fraction(f): String(f)
        case let .start(n): n == 0 ? start : "\(start)-\(n)"
        case let .end(n): n == 0 ? end : "\(end)-\(n)"
        case .center: "center"
        case .repeat: "repeat"
        }
    }

    /// Where the image's top-left corners go on one axis of `length` for an image of `side`.
    static func offsets(_ placement: Placement, length: Int, side: Int) -> [Int] {
        switch placement {
        case .center: return [(length - side) / 2]
        case let .pixels(n): return [n < 0 ? length - side + n : n]
        case let .percent(p):
            let n = Int(rounding: Double(length) * Double(abs(p)) / 100, within: 0...max(0, length))
            return [p < 0 ? length - side - n : n]
        case let .fraction(f): return [Int(rounding: Double(length - side) * f, within: min(0, length - side)...max(0, length - side))]
        case let .start(n): return [n]
        case let .end(n): return [length - side - n]
        case .repeat:
            let count = min(maxTiles, max(1, (length + side - 1) / max(1, side)))
            return (0..<count).map { $0 * side }
        }
    }

    /// `image` with `overlay` composited over it: the overlay's alpha times the opacity, each
    /// colour blended by the mode; the output keeps its alpha band when it has one.
    /// - Throws: `ImagingError` when libvips fails.
    public func apply(_ overlay: RenderedImage, to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let output = image.size, side = overlay.size
        let top = try overlay.rgbaPixels()
        var base = try image.rgbaPixels()
        let keepsAlpha = image.hasAlpha
        let opacity = Double(100 - alpha) / 100
        let xs = Self.offsets(x, length: output.width, side: side.width)
        let ys = Self.offsets(y, length: output.height, side: side.height)
        let mode = blend
        OverlayPlacement.forEachCovered(xs: xs, ys: ys, side: side, output: output) { laid, out in
            let s = 4 * laid, o = 4 * out
            let a = Double(top[s + 3]) / 255 * opacity
            guard a > 0 else { return }
            let below = Double(base[o + 3]) / 255
            for c in 0..<3 {
                let b = Double(base[o + c]) / 255, t = Double(top[s + c]) / 255
                let mixed = mode == .normal ? t : Self.blend(mode, b, t)
                base[o + c] = UInt8(clamping: Int(((mixed * a + b * (1 - a)) * 255).rounded()))
            }
            base[o + 3] = UInt8(clamping: Int(((a + below * (1 - a)) * 255).rounded()))
        }
        if keepsAlpha { return try RenderedImage(rgba: base, size: output) }
        var rgb = [UInt8](repeating: 0, count: output.width * output.height * 3)
        for i in 0..<(output.width * output.height) {
            rgb[3 * i] = base[4 * i]
            rgb[3 * i + 1] = base[4 * i + 1]
            rgb[3 * i + 2] = base[4 * i + 2]
        }
        return try RenderedImage(pixels: PixelBuffer(unchecked: output.width, height: output.height, bytes: rgb))
    }

    /// One channel of `mode` (CSS compositing's separable blend modes), `b` the output's, `s` the
    /// overlay's, both 0-1.
    static func blend(_ mode: BlendMode, _ b: Double, _ s: Double) -> Double {
        switch mode {
        case .normal: s
        case .multiply: b * s
        case .screen: b + s - b * s
        case .overlay: b <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s)
        case .darken: min(b, s)
        case .lighten: max(b, s)
        case .colorDodge: b == 0 ? 0 : s >= 1 ? 1 : min(1, b / (1 - s))
        case .colorBurn: b >= 1 ? 1 : s <= 0 ? 0 : 1 - min(1, (1 - b) / s)
        case .hardLight: s <= 0.5 ? 2 * b * s : 1 - 2 * (1 - b) * (1 - s)
        case .softLight:
            if s <= 0.5 {
                b - (1 - 2 * s) * b * (1 - b)
            } else {
                b + (2 * s - 1) * ((b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()) - b)
            }
        case .difference: abs(b - s)
        case .exclusion: b + s - 2 * b * s
        case .add: min(1, b + s)
        }
    }
}
