public import FocalCore

/// thumbor's `frame(IMAGE)`: the output framed by a nine-patch image, as Android draws one.
///
/// The patch's outermost pixels are its guides, not its picture. Opaque black on the top row
/// marks the columns that stretch, on the left column the rows that stretch; the rest keep their
/// size. Opaque black on the bottom row and right column marks where the content goes: the
/// output grows by the patch's margins outside those marks (white, then the output at their
/// inner corner), and the patch's picture, stretched to the grown size cell by cell, is laid
/// over it by its transparency. Arithmetic, rounding and bilinear sampling are thumbor's own, so
/// a frame gives thumbor's pixels.
public struct NinePatch: Hashable, Sendable, Encodable {
    /// The patch image, as the request names it.
    public var source: String
    /// The SHA-256 of the patch's bytes, once read (part of result keys).
    public var contentID: String?

    /// The values `frame` takes, for the documentation.
    public static let values =
        "a nine-patch PNG, GIF, WebP or TIFF (a path under the root, an `id:`, or a source the server allows): its 1-pixel border marks in opaque black the rows and columns that stretch (top, left) and where the image goes (bottom, right)"

    /// File name endings of formats that keep a nine-patch's guides exact (lossless, with alpha).
    static let endings = [".png", ".gif", ".webp", ".tif", ".tiff"]

    /// Reads the patch's name.
    /// - Throws: `PlanningError.invalidOption` when it is empty, longer than 1000 characters, or
    ///   a file name that is not a lossless format's (a JPEG cannot hold exact guides); a URL, an
    ///   object, an `id:` or a `b64:` name is taken whatever its ending.
    public init(text: String) throws(PlanningError) {
        let name = text.trimmingSpaces
        let lowered = name.lowercased()
        let addressed = ["http://", "https://", "s3://", "id:", "b64:"].contains { lowered.hasPrefix($0) }
        guard !name.isEmpty, name.count <= 1000, addressed || Self.endings.contains(where: { lowered.hasSuffix($0) }) else {
            throw PlanningError.invalidOption("frame '\(text.prefix(80))' must be \(Self.values)")
        }
        source = name
    }

    /// The canonical text.
    public var text: String { source }

    /// A patch's pixels, read once and laid on every frame of an output.
    public struct Patch: Sendable {
        /// The patch's size, its guide border included.
        public let size: PixelSize
        let rgba: [UInt8]
        /// The margins the output grows by: left, top, right, bottom.
        public let padding: (left: Int, top: Int, right: Int, bottom: Int)

        /// Reads a patch from its image.
        /// - Throws: `ImagingError` (`request.invalid`) when it is too small to have a border and
        ///   a picture (3×3), or libvips fails.
        public init(_ image: RenderedImage) throws(ImagingError) {
            size = image.size
            guard size.width >= 3, size.height >= 3 else {
                throw ImagingError(.requestInvalid, "a frame's nine-patch image must be at least 3×3 pixels; this one is \(size)")
            }
            let pixels = try image.rgbaPixels()
            var left = 0, top = 0, right = 0, bottom = 0
            let (w, h) = (size.width, size.height)
            if let x = (1..<(w - 1)).first(where: { Self.stretchy(pixels, w, $0, h - 1) }) { left = x - 1 }
            if let x = (1..<(w - 1)).reversed().first(where: { Self.stretchy(pixels, w, $0, h - 1) }) { right = w - 2 - x }
            if let y = (1..<(h - 1)).first(where: { Self.stretchy(pixels, w, w - 1, $0) }) { top = y - 1 }
            if let y = (1..<(h - 1)).reversed().first(where: { Self.stretchy(pixels, w, w - 1, $0) }) { bottom = h - 2 - y }
            rgba = pixels
            padding = (left, top, right, bottom)
        }

        /// Whether the pixel at (x, y) is opaque black: a guide.
        static func stretchy(_ rgba: [UInt8], _ width: Int, _ x: Int, _ y: Int) -> Bool {
            let i = 4 * (y * width + x)
            return rgba[i] == 0 && rgba[i + 1] == 0 && rgba[i + 2] == 0 && rgba[i + 3] == 255
        }

        /// The size of an output of `size` once framed.
        public func framedSize(_ size: PixelSize) -> PixelSize {
            // Margins are under the patch's side, itself within the input limits.
            PixelSize(width: size.width + padding.left + padding.right, height: size.height + padding.top + padding.bottom)
        }

        /// The runs of guide pixels along one edge: each (start, length, stretchy), from 1 to
        /// `count - 1` (the corners are not part of the picture).
        func runs(count: Int, stretchyAt: (Int) -> Bool) -> [(start: Int, length: Int, stretchy: Bool)] {
            var runs: [(Int, Int, Bool)] = []
            var at = 1
            while at < count - 1 {
                let kind = stretchyAt(at)
                var next = at + 1
                while next < count - 1, stretchyAt(next) == kind { next += 1 }
                runs.append((at, next - at, kind))
                at = next
            }
            return runs
        }
    }

    /// `image` framed by `patch`: grown by its margins (white), then the patch's picture laid
    /// over it.
    /// - Throws: `ImagingError` when libvips fails.
    public static func apply(_ patch: Patch, to image: RenderedImage) throws(ImagingError) -> RenderedImage {
        let inner = image.size
        let size = patch.framedSize(inner)
        let source = try image.rgbaPixels()
        var target = [UInt8](repeating: 255, count: 4 * size.width * size.height)
        for y in 0..<inner.height {
            let from = 4 * y * inner.width, to = 4 * ((y + patch.padding.top) * size.width + patch.padding.left)
            target.replaceSubrange(to..<(to + 4 * inner.width), with: source[from..<(from + 4 * inner.width)])
        }
        let (w, h) = (patch.size.width, patch.size.height)
        let columns = patch.runs(count: w) { Patch.stretchy(patch.rgba, w, $0, 0) }
        let rows = patch.runs(count: h) { Patch.stretchy(patch.rgba, w, 0, $0) }
        let stretchyWidth = columns.filter(\.stretchy).reduce(0) { $0 + $1.length }
        let stretchyHeight = rows.filter(\.stretchy).reduce(0) { $0 + $1.length }
        let spareWidth = max(0, size.width - (w - 2 - stretchyWidth)), spareHeight = max(0, size.height - (h - 2 - stretchyHeight))
        var ty = 0
        for row in rows {
            let th = row.stretchy ? Int(saturating: Double(row.length) / Double(stretchyHeight) * Double(spareHeight) + 0.5) : row.length
            var tx = 0
            for column in columns {
                let tw = column.stretchy ? Int(saturating: Double(column.length) / Double(stretchyWidth) * Double(spareWidth) + 0.5) : column.length
                paste(patch, from: PixelRect(x: column.start, y: row.start, width: column.length, height: row.length),
                      into: &target, size, at: PixelRect(x: tx, y: ty, width: tw, height: th))
                tx += tw
            }
            ty += th
        }
        return try RenderedImage(rgba: target, size: size)
    }

    /// One cell of the patch stretched over an area of the target (bilinear, as thumbor samples),
    /// composited by the patch's transparency; the target's alpha is kept. A cell that does not
    /// fit is left out, as thumbor's.
    static func paste(_ patch: Patch, from cell: PixelRect, into target: inout [UInt8], _ size: PixelSize, at area: PixelRect) {
        guard area.width > 0, area.height > 0, area.x + area.width <= size.width, area.y + area.height <= size.height else { return }
        let xRatio = Double(cell.width - 1) / Double(area.width), yRatio = Double(cell.height - 1) / Double(area.height)
        let w = patch.size.width
        let pixels = patch.rgba
        func sample(_ x: Int, _ y: Int, _ fx: Double, _ fy: Double, _ s: Int) -> Int {
            let a = Int(pixels[4 * (y * w + x) + s]), b = Int(pixels[4 * (y * w + x + 1) + s])
            let c = Int(pixels[4 * ((y + 1) * w + x) + s]), d = Int(pixels[4 * ((y + 1) * w + x + 1) + s])
            if a == b && a == c && a == d { return a }
            let mixed = Double(a) * (1 - fx) * (1 - fy) + Double(b) * fx * (1 - fy) + Double(c) * (1 - fx) * fy + Double(d) * fx * fy
            return clamped(mixed)
        }
        for y in 0..<area.height {
            let sy = Int(yRatio * Double(y)), fy = yRatio * Double(y) - Double(Int(yRatio * Double(y)))
            for x in 0..<area.width {
                let sx = Int(xRatio * Double(x)), fx = xRatio * Double(x) - Double(sx)
                let px = cell.x + sx, py = cell.y + sy
                let clear = Double(255 - sample(px, py, fx, fy, 3)) / 255
                let t = 4 * ((area.y + y) * size.width + area.x + x)
                let targetClear = Double(255 - Int(target[t + 3])) / 255
                for s in 0..<3 {
                    let value = (1 - clear) * Double(sample(px, py, fx, fy, s)) + (1 - targetClear) * Double(target[t + s]) * clear
                    target[t + s] = UInt8(clamped(value))
                }
            }
        }
    }

    /// thumbor's ADJUST_COLOR_DOUBLE: held to 0...255, then truncated.
    static func clamped(_ value: Double) -> Int { value > 255 ? 255 : value < 0 ? 0 : Int(value) }
}
