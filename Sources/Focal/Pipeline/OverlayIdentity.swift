import Foundation

/// What an overlay image (a watermark's, a frame's) was last found to be: its content's SHA-256,
/// the stamp of the file it was read from, and when a URL's was last read. A cached crop with an
/// overlay is then a hit without reading the overlay (`FocalPipeline.overlayIdentity(of:)`).
struct OverlayIdentity: Sendable {
    /// The SHA-256 (hex) of the overlay's bytes.
    let contentID: String
    /// A file's size, modification time and inode when it was read; nil for a URL.
    let stamp: String?
    /// When a URL's bytes were read.
    let read: ContinuousClock.Instant

    /// How long a URL overlay's identity holds without a look: a watermark changed at its URL
    /// shows within a minute (a cached crop of the old one stays until its own expiry).
    static let urlLifetime: Duration = .seconds(60)
    /// How long a URL overlay's last identity still serves cached crops while its host fails.
    static let staleIfError: Duration = .seconds(24 * 3600)
    /// The most overlays remembered.
    static let entries = 1024

    /// A file's stamp: size, modification time (to the nanosecond) and inode; nil when `path` is
    /// not a regular file that can be looked at.
    static func stamp(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
    }
}
