/// Where and how large the disk cache of results is.
public struct DiskCacheSettings: Hashable, Sendable {
    /// The folder; created when missing. Several processes may share it; each keeps the bound
    /// for what it knows (what was there when it started, and what it read or wrote since).
    public var folder: String
    /// The most bytes kept; the least recently used entries are deleted beyond it. Default 1 GiB.
    public var maxBytes: Int

    /// Creates settings.
    /// - Parameters:
    ///   - folder: The cache folder.
    ///   - maxBytes: The size bound in bytes; default 1 GiB.
    public init(folder: String, maxBytes: Int = 1 << 30) {
        self.folder = folder
        self.maxBytes = maxBytes
    }
}
