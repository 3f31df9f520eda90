public import FocalCore

/// A rectangle: `{"x", "y", "width", "height"}`, in pixels to 2 decimals, or as fractions of the
/// image to 4.
public struct BoxDocument: Encodable, Sendable {
    public let x: Double, y: Double, width: Double, height: Double

    /// A rectangle in pixels.
    public init(_ box: Box) {
        (x, y, width, height) = (
            DocumentEncoding.pixels(box.x), DocumentEncoding.pixels(box.y), DocumentEncoding.pixels(box.width), DocumentEncoding.pixels(box.height)
        )
    }

    /// A rectangle as fractions of an image of `size`.
    public init(_ rect: PixelRect, relativeTo size: PixelSize) {
        let w = Double(max(1, size.width)), h = Double(max(1, size.height))
        (x, y, width, height) = (
            DocumentEncoding.fraction(Double(rect.x) / w), DocumentEncoding.fraction(Double(rect.y) / h),
            DocumentEncoding.fraction(Double(rect.width) / w), DocumentEncoding.fraction(Double(rect.height) / h)
        )
    }
}

/// A rectangle in whole pixels: `{"x", "y", "width", "height"}`.
public struct PixelRectDocument: Encodable, Sendable {
    public let x: Int, y: Int, width: Int, height: Int

    /// The rectangle's numbers.
    public init(_ rect: PixelRect) { (x, y, width, height) = (rect.x, rect.y, rect.width, rect.height) }
}

/// A size in pixels: `{"width", "height"}`.
public struct SizeDocument: Encodable, Sendable {
    public let width: Int, height: Int

    /// The size's numbers.
    public init(_ size: PixelSize) { (width, height) = (size.width, size.height) }
}
