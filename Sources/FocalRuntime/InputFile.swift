package import FocalCore
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an input file whole, safely: only a regular file (not a folder, a pipe or a device),
/// only up to the byte limit, checked before reading and again while reading.
package enum InputFile {
    /// Why a file could not be read; callers turn it into their own error type.
    package struct Failure: Error {
        /// `input.not_found`, `input.not_a_file`, `input.unreadable`, `input.empty` or `input.too_large`.
        package let code: ErrorCode
        /// What is wrong, without the path.
        package let message: String
        /// The system's words, when there are any.
        package let cause: String?
        /// The limit error, for `input.too_large`.
        package let limit: LimitExceeded?

        init(_ code: ErrorCode, _ message: String, cause: String? = nil, limit: LimitExceeded? = nil) {
            self.code = code
            self.message = message
            self.cause = cause
            self.limit = limit
        }
    }

    /// The file's bytes.
    /// - Parameters:
    ///   - path: The file.
    ///   - maxBytes: The byte limit.
    /// - Throws: `Failure`.
    package static func read(_ path: String, maxBytes: Int) throws(Failure) -> Data {
        // Non-blocking, so that opening a pipe with no writer cannot hang.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw Failure(.inputNotFound, "no such file")
            }
            throw Failure(.inputUnreadable, "the file cannot be opened", cause: String(cString: strerror(code)))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw Failure(.inputUnreadable, "the file cannot be examined", cause: String(cString: strerror(errno)))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            let kind = (status.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file (a pipe, a device or a socket)"
            throw Failure(.inputNotAFile, "it is \(kind), not a file")
        }
        let declared = Int(status.st_size)
        if declared == 0 { throw Failure(.inputEmpty, "the file is empty (0 bytes)") }
        do {
            try ImageLimits(maxInputBytes: maxBytes).check(inputBytes: declared)
        } catch {
            throw Failure(.inputTooLarge, error.publicMessage, limit: error.naming(path))
        }
        // Read at most one byte more than the limit: a file that grows while it is read is caught.
        let capacity = min(declared, maxBytes) + 1
        var data = Data(count: capacity)
        var filled = 0
        let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return EINVAL }
            while filled < capacity {
                let got = systemRead(fd, base + filled, capacity - filled)
                if got < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if got == 0 { break }
                filled += got
            }
            return nil
        }
        if let failure {
            throw Failure(.inputUnreadable, "the file cannot be read", cause: String(cString: strerror(failure)))
        }
        if filled > maxBytes {
            let limit = LimitExceeded(.inputTooLarge, limit: "maxInputBytes", allowed: "\(maxBytes) bytes", actual: "more", source: path)
            throw Failure(.inputTooLarge, limit.publicMessage, limit: limit)
        }
        if filled == 0 { throw Failure(.inputEmpty, "the file is empty (0 bytes)") }
        data.count = filled
        return data
    }
}

#if canImport(Glibc)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { Glibc.read(fd, buffer, count) }
#elseif canImport(Darwin)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { Darwin.read(fd, buffer, count) }
#endif
