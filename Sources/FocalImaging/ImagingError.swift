/// Why an image could not be read, processed or written.
public struct ImagingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Hashable, Sendable {
        /// There were no bytes.
        case empty
        /// The input is larger in bytes than the limit.
        case tooManyBytes
        /// The header claims more pixels than the limit.
        case tooManyPixels
        /// The bytes are not an image format libvips reads.
        case notAnImage
        /// The image is corrupt or truncated.
        case decodeFailed
        /// Encoding the output failed.
        case encodeFailed
        /// A file could not be read or written.
        case io
        /// libvips could not start.
        case unavailable
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong and what to do, for a person.
    public var message: String
    /// The file or source it concerns, when known.
    public var source: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, source: String? = nil) {
        self.code = code
        self.message = message
        self.source = source
    }

    /// The same error naming `source`.
    public func naming(_ source: String) -> ImagingError {
        var copy = self
        copy.source = source
        return copy
    }

    public var description: String {
        if let source { "\(source): \(message)" } else { message }
    }
}
