/// An 8-bit interleaved RGB image in memory: what detectors look at.
public struct PixelBuffer: Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Rows of `width` × 3 bytes (R, G, B), top row first.
    public let bytes: [UInt8]

    /// Creates a buffer; `bytes.count` must be `width * height * 3`.
    /// - Returns: nil when the byte count does not match the size.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        guard width > 0, height > 0, bytes.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// Creates a buffer whose byte count the caller has already checked.
    package init(unchecked width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// The size of the buffer.
    public var size: PixelSize { PixelSize(width: width, height: height) }
}
