import Foundation

/// Writing to standard output and error, one whole line at a time. A line that cannot be written
/// (the reader went away) is dropped: Foundation's non-throwing `write(_:)` would trap.
enum Terminal {
    private static let lock = NSLock()

    static func out(_ line: String) {
        lock.withLock { try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8)) }
    }

    static func err(_ line: String) {
        lock.withLock { try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8)) }
    }

    /// Rewrites a progress line on standard error when it is a terminal.
    static func progress(_ done: Int, of total: Int) {
        guard isatty(2) == 1 else { return }
        lock.withLock {
            try? FileHandle.standardError.write(contentsOf: Data("\r\(done)/\(total)\(done == total ? "\n" : "")".utf8))
        }
    }
}
