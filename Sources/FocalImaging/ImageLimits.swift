/// Limits that protect a process from hostile or accidental input.
public struct ImageLimits: Hashable, Sendable {
    /// The largest input accepted, in bytes; default 64 MiB.
    public var maxInputBytes: Int
    /// The most pixels an image's header may claim; default 100 megapixels.
    public var maxPixels: Int

    /// Defaults a server can live with: 64 MiB and 100 megapixels.
    public static let `default` = ImageLimits()

    /// Creates limits.
    /// - Parameters:
    ///   - maxInputBytes: Largest input in bytes; default 64 MiB.
    ///   - maxPixels: Largest width × height; default 100 000 000.
    public init(maxInputBytes: Int = 64 << 20, maxPixels: Int = 100_000_000) {
        self.maxInputBytes = maxInputBytes
        self.maxPixels = maxPixels
    }
}
