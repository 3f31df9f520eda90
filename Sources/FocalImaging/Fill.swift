public import FocalCore

/// thumbor's `fill(…)` with `fit-in`: the output placed in the middle of the box the URL asked for,
/// the rest filled with a colour, the image's mean colour (`auto`), the image itself blurred and
/// stretched (`blur`), or left transparent (`transparent`, imagor's `none`).
public struct Fill: Hashable, Sendable, Encodable {
    /// What fills the box around the image.
    public enum Style: Hashable, Sendable, Encodable {
        case colour(RGBColour)
        /// The image's mean colour.
        case auto
        /// The image, blurred and stretched over the box.
        case blur
        /// Transparent (a format with alpha keeps it).
        case transparent
    }

    /// What fills the box.
    public var style: Style
    /// Whether the image's own transparency is filled too (thumbor's second argument).
    public var fillsTransparency: Bool
    /// The box's sides asked for (a URL's `W` and `H`); nil for a side not given: the output's own.
    /// Set by the URL door; without it the output is not padded.
    public var box: (width: Int?, height: Int?) = (nil, nil)
    /// How far right and down of the box's middle the image sits (imagor's uneven padding
    /// `/WxH/L x T:R x B/` puts it in the middle of what the paddings leave: `((L-R)/2, (T-B)/2)`);
    /// default none.
    public var shift: (x: Int, y: Int) = (0, 0)

    public static func == (a: Fill, b: Fill) -> Bool {
        a.style == b.style && a.fillsTransparency == b.fillsTransparency && a.box.width == b.box.width && a.box.height == b.box.height
            && a.shift.x == b.shift.x && a.shift.y == b.shift.y
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(style)
        hasher.combine(fillsTransparency)
        hasher.combine(box.width)
        hasher.combine(box.height)
        hasher.combine(shift.x)
        hasher.combine(shift.y)
    }

    private enum CodingKeys: String, CodingKey { case style, fillsTransparency, width, height, shiftX, shiftY }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .style)
        try container.encodeIfPresent(box.width, forKey: .width)
        try container.encodeIfPresent(box.height, forKey: .height)
        if shift != (0, 0) {
            try container.encode(shift.x, forKey: .shiftX)
            try container.encode(shift.y, forKey: .shiftY)
        }
    }

    /// The values `fill` takes, for the documentation.
    public static let values =
        "a colour (`ff0000`, `red`), `auto` (the image's mean colour), `blur` (the image blurred behind itself) or `transparent` (or `none`), then optionally `true` to fill the image's own transparency too"

    /// Reads `COLOUR|auto|blur|transparent|none[,true|false]`.
    /// - Throws: `PlanningError.invalidOption` naming what is wrong.
    public init(text: String) throws(PlanningError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard let first = parts.first, !first.isEmpty, parts.count <= 2 else {
            throw PlanningError.invalidOption("fill '\(text)' must be \(Self.values)")
        }
        switch first.lowercased() {
        case "auto": style = .auto
        case "blur": style = .blur
        case "transparent", "none": style = .transparent
        default:
            guard let colour = RGBColour(text: first) else { throw PlanningError.invalidOption("fill '\(text)': '\(first)' is not \(Self.values)") }
            style = .colour(colour)
        }
        switch parts.count == 2 ? parts[1] : "false" {
        case "true", "True", "1": fillsTransparency = true
        case "false", "False", "0": fillsTransparency = false
        default: throw PlanningError.invalidOption("fill '\(text)': its second argument is true or false")
        }
    }

    /// The canonical text: `ff0000`, `auto`, `blur` or `transparent`, then `,true` when set.
    public var text: String {
        let name: String
        switch style {
        case let .colour(colour): name = colour.hex
        case .auto: name = "auto"
        case .blur: name = "blur"
        case .transparent: name = "transparent"
        }
        return fillsTransparency ? name + ",true" : name
    }

    /// The size of the box around an output of `size`: the sides asked for, never smaller than the
    /// output's.
    public func canvas(for size: PixelSize) -> PixelSize {
        PixelSize(width: max(size.width, box.width ?? size.width), height: max(size.height, box.height ?? size.height))
    }

    /// `image` in the middle of its box (sides not given are the image's own; a box smaller than
    /// the image on a side is the image's), the rest filled; the image itself when the box is its size.
    /// - Throws: `ImagingError` when libvips fails.
    public func apply(to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let size = image.size
        let (width, height) = (canvas(for: size).width, canvas(for: size).height)
        guard width > size.width || height > size.height else { return image }
        let canvasSize = PixelSize(width: width, height: height)
        let left = min(max(0, (width - size.width) / 2 + shift.x), width - size.width)
        let top = min(max(0, (height - size.height) / 2 + shift.y), height - size.height)
        let background: PixelBuffer
        var flattenOn = RGBColour(red: 255, green: 255, blue: 255)
        switch style {
        case let .colour(colour):
            background = Self.plain(canvasSize, colour)
            if fillsTransparency { flattenOn = colour }
        case .auto:
            let colour = try Self.mean(image.pixels())
            background = Self.plain(canvasSize, colour)
            if fillsTransparency { flattenOn = colour }
        case .blur:
            let blurred = try image.flattened(on: flattenOn).convolved(Blur.kernel(radius: 50, sigma: 50), columns: 101, separable: true)
            background = try blurred.resized(to: canvasSize).pixels()
        case .transparent:
            background = Self.plain(canvasSize, flattenOn)
        }
        let picture = try image.flattened(on: flattenOn).pixels()
        var rgb = background.bytes
        for y in 0..<size.height {
            let from = 3 * y * size.width, to = 3 * ((top + y) * width + left)
            rgb.replaceSubrange(to..<(to + 3 * size.width), with: picture.bytes[from..<(from + 3 * size.width)])
        }
        guard case .transparent = style else { return try RenderedImage(pixels: PixelBuffer(unchecked: width, height: height, bytes: rgb)) }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                let inside = x >= left && x < left + size.width && y >= top && y < top + size.height
                rgba[4 * i] = rgb[3 * i]
                rgba[4 * i + 1] = rgb[3 * i + 1]
                rgba[4 * i + 2] = rgb[3 * i + 2]
                rgba[4 * i + 3] = inside ? 255 : 0
            }
        }
        return try RenderedImage(rgba: rgba, size: canvasSize)
    }

    static func plain(_ size: PixelSize, _ colour: RGBColour) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: size.area * 3)
        for i in 0..<size.area {
            bytes[3 * i] = colour.red
            bytes[3 * i + 1] = colour.green
            bytes[3 * i + 2] = colour.blue
        }
        return PixelBuffer(unchecked: size.width, height: size.height, bytes: bytes)
    }

    /// The mean colour of `pixels` (thumbor's `auto`).
    static func mean(_ pixels: PixelBuffer) -> RGBColour {
        var sums = [0, 0, 0]
        for (i, byte) in pixels.bytes.enumerated() { sums[i % 3] += Int(byte) }
        let count = max(1, pixels.width * pixels.height)
        return RGBColour(red: UInt8(sums[0] / count), green: UInt8(sums[1] / count), blue: UInt8(sums[2] / count))
    }
}
