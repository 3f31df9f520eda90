/// A size in whole pixels.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width × height, or `Int.max` when that does not fit in an Int.
    public var area: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }

    public var description: String { "\(width)x\(height)" }
}

/// A rectangle in whole pixels, origin top left.
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a rectangle from its top-left corner and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The same rectangle with fractional coordinates.
    public var box: Box { Box(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }

    /// The size of the rectangle.
    public var size: PixelSize { PixelSize(width: width, height: height) }

    /// Whether the rectangle lies entirely inside an image of `size`.
    public func isInside(_ size: PixelSize) -> Bool {
        // Subtracted rather than added, so that no value can overflow.
        x >= 0 && y >= 0 && width > 0 && height > 0 && x <= size.width - width && y <= size.height - height
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A rectangle with fractional pixel coordinates, origin top left: subject boxes and regions.
public struct Box: Hashable, Sendable, Codable {
    /// Left edge.
    public var x: Double
    /// Top edge.
    public var y: Double
    /// Width.
    public var width: Double
    /// Height.
    public var height: Double

    /// Creates a box from its top-left corner and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Right edge.
    public var maxX: Double { x + width }
    /// Bottom edge.
    public var maxY: Double { y + height }
    /// Horizontal centre.
    public var midX: Double { x + width / 2 }
    /// Vertical centre.
    public var midY: Double { y + height / 2 }
    /// Width × height (zero for an empty box).
    public var area: Double { max(0, width) * max(0, height) }

    /// The smallest box holding both boxes.
    public func union(_ other: Box) -> Box {
        let minX = min(x, other.x), minY = min(y, other.y)
        return Box(x: minX, y: minY, width: max(maxX, other.maxX) - minX, height: max(maxY, other.maxY) - minY)
    }

    /// The overlap of two boxes, or nil when they do not overlap.
    public func intersection(_ other: Box) -> Box? {
        let minX = max(x, other.x), minY = max(y, other.y)
        let w = min(maxX, other.maxX) - minX, h = min(maxY, other.maxY) - minY
        guard w > 0, h > 0 else { return nil }
        return Box(x: minX, y: minY, width: w, height: h)
    }

    /// Intersection over union, 0 when the boxes do not overlap.
    public func iou(_ other: Box) -> Double {
        guard let overlap = intersection(other) else { return 0 }
        let union = area + other.area - overlap.area
        return union > 0 ? overlap.area / union : 0
    }

    /// The share of this box's area that lies inside `other` (0...1).
    public func fractionInside(_ other: Box) -> Double {
        guard area > 0 else { return other.contains(x: x, y: y) ? 1 : 0 }
        return (intersection(other)?.area ?? 0) / area
    }

    /// Whether the point lies inside the box (edges included).
    public func contains(x px: Double, y py: Double) -> Bool {
        px >= x && px <= maxX && py >= y && py <= maxY
    }

    /// Whether `other` lies entirely inside this box, with `tolerance` pixels of slack.
    public func contains(_ other: Box, tolerance: Double = 1e-6) -> Bool {
        other.x >= x - tolerance && other.y >= y - tolerance
            && other.maxX <= maxX + tolerance && other.maxY <= maxY + tolerance
    }

    /// The box clipped to an image of `size`; an empty box at the nearest edge when fully outside.
    public func clamped(to size: PixelSize) -> Box {
        let minX = min(max(x, 0), Double(size.width)), minY = min(max(y, 0), Double(size.height))
        let maxX = min(max(self.maxX, minX), Double(size.width))
        let maxY = min(max(self.maxY, minY), Double(size.height))
        return Box(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The box scaled about the origin by `sx` horizontally and `sy` vertically.
    public func scaled(x sx: Double, y sy: Double) -> Box {
        Box(x: x * sx, y: y * sy, width: width * sx, height: height * sy)
    }
}
