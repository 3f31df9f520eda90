import Foundation

/// Writing to standard output and error, one whole line at a time.
enum Terminal {
    private static let lock = NSLock()

    static func out(_ line: String) {
        lock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    static func err(_ line: String) {
        lock.withLock { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Rewrites a progress line on standard error when it is a terminal.
    static func progress(_ done: Int, of total: Int) {
        guard isatty(2) == 1 else { return }
        lock.withLock {
            FileHandle.standardError.write(Data("\r\(done)/\(total)\(done == total ? "\n" : "")".utf8))
        }
    }
}
