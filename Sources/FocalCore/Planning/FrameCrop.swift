/// One frame of an animated output: where it is cut from its frame of the input, and how long it
/// shows.
public struct FrameCrop: Hashable, Sendable, Codable {
    /// The crop, in pixels of the input's canvas.
    public var crop: PixelRect
    /// How long the frame shows, in milliseconds.
    public var delay: Int

    /// Creates a frame's crop.
    public init(crop: PixelRect, delay: Int) {
        self.crop = crop
        self.delay = delay
    }
}
