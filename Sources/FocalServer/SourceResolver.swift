public import Focal
public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the image of a request comes from: an input the library reads (by the reader of its
/// scheme), or an upload found by its identity.
public enum ImageSource: Hashable, Sendable {
    /// An input the library reads: a file or object under the root (with the relative path as
    /// asked), or any other source a reader names (an http(s) URL, an object in an allowed
    /// bucket, a `color:` blank).
    case input(ImageInput, relative: String?)
    /// An uploaded image, by its identity (SHA-256 of its bytes, hex).
    case upload(id: String)

    /// The path under the root as asked, for a photo there.
    public var relative: String? {
        if case let .input(_, relative) = self { relative } else { nil }
    }
}

/// Turns the image part of a request into a source: a path under the root folder or bucket
/// (never outside it: no `..`, no absolute path, no hidden file, no symbolic link leading out), an
/// http(s) URL (percent-encoded or not), an `s3://BUCKET/KEY` in an allowed bucket, or
/// `id:<sha256>` of an upload.
public struct SourceResolver: Sendable {
    /// The root folder's real path, when there is one.
    public let root: String?
    /// The root bucket, when the root is `s3://BUCKET[/PREFIX]`.
    public let bucket: BucketRoot?
    /// Buckets `s3://` URLs may name besides the root's.
    public let allowedBuckets: Set<String>

    /// Creates a resolver.
    /// - Parameters:
    ///   - root: The folder local paths are read from, or `s3://BUCKET[/PREFIX]`; nil for none.
    ///   - allowedBuckets: Buckets `s3://` URLs may name besides the root's; default none.
    /// - Throws: `ServerError` when the root folder does not exist.
    public init(root: String?, allowedBuckets: Set<String> = []) throws(ServerError) {
        self.allowedBuckets = allowedBuckets
        if let root, ObjectAddress.looksLikeOne(root) {
            guard let bucket = BucketRoot(root) else { throw ServerError(.storageInvalidAddress, "the root \(root.excerpt()) is not s3://BUCKET[/PREFIX]") }
            self.bucket = bucket
            self.root = nil
            return
        }
        bucket = nil
        guard let root else {
            self.root = nil
            return
        }
        guard let real = Self.realPath(root) else {
            throw ServerError(.inputNotFound, "the root folder \(root) does not exist")
        }
        self.root = real
    }

    /// The source the image part names: an upload's `id:`, a name a library reader knows
    /// (`ImageInput.named`: a URL, an object, a `color:` blank made at `size`), else a path under
    /// the root. Objects are held to the root's bucket and prefix or the allowed buckets.
    /// - Parameters:
    ///   - image: The image part of the request, as sent (percent-encoded or not, or imagor's
    ///     `b64:` and base64url).
    ///   - size: The output's size, for a made source; nil when the route has none.
    ///   - limits: The limits a made source is made within; default `ImageLimits.default`.
    /// - Throws: `ServerError` with `request.invalid` for a malformed name, `input.not_found`
    ///   for one that is missing or not allowed, or the reader's code (`storage.invalid_address`).
    public func resolve(_ image: String, size: PixelSize? = nil, limits: ImageLimits = .default) throws(ServerError) -> ImageSource {
        let decoded = Base64Source.decoded(image) ?? image.removingPercentEncoding ?? image
        if decoded.hasPrefix("id:") {
            let id = String(decoded.dropFirst(3)).lowercased()
            guard Self.isImageID(id) else { throw ServerError.invalid("an image id is id: followed by 64 hex digits") }
            return .upload(id: id)
        }
        let named: ImageInput?
        do {
            // A URL that is only valid still encoded (a space in its path) is read as sent.
            named = try ImageInput.named(decoded, size: size, limits: limits)
        } catch {
            guard decoded != image, let again = try? ImageInput.named(image, size: size, limits: limits) else { throw Self.refusal(error) }
            named = again
        }
        guard let named else { return try file(decoded) }
        guard case let .object(address) = named.location else { return .input(named, relative: nil) }
        // Only the root's keys, or a bucket the operator allowed: a client never picks the store.
        if let bucket, address.bucket == bucket.bucket, let relative = bucket.relative(address.key) { return try file(relative) }
        guard allowedBuckets.contains(address.bucket) else {
            throw ServerError(.storageNotAllowed, "the bucket \(address.bucket.excerpt()) is not one this server reads")
        }
        // Its key by the rule of a path: a hop that normalises `.` and `..` never sees one.
        guard Self.isPlainPath(address.key) else { throw ServerError(.inputNotFound, "no image \(address.key.excerpt()) here") }
        return .input(named, relative: nil)
    }

    /// A reader's refusal of a name as the service's error: its code and public message.
    static func refusal(_ error: any Error) -> ServerError {
        guard let error = error as? any FocalError else { return ServerError.invalid("the image name is malformed") }
        return ServerError(error.code, error.publicMessage, cause: error.detail)
    }

    /// A relative path under the root, checked.
    public func file(_ relative: String) throws(ServerError) -> ImageSource {
        guard root != nil || bucket != nil else { throw ServerError(.inputNotFound, "this service has no local images (no root folder)") }
        guard Self.isPlainPath(relative) else { throw ServerError(.inputNotFound, "no image \(relative.excerpt()) here") }
        if let bucket {
            guard let address = bucket.address(relative) else { throw ServerError(.inputNotFound, "no image \(relative.excerpt()) here") }
            return .input(.object(address), relative: relative)
        }
        guard let root else { throw ServerError(.inputNotFound, "this service has no local images (no root folder)") }
        guard let real = Self.realPath(root + "/" + relative), real.hasPrefix(root + "/") else {
            throw ServerError(.inputNotFound, "no image \(relative.excerpt()) here")
        }
        return .input(.file(real), relative: relative)
    }

    /// Whether `relative` is a path a request may name: not empty, no NUL, no leading `/`, no
    /// empty part, no part starting with `.` (hidden names, `.` and `..`).
    public static func isPlainPath(_ relative: String) -> Bool {
        !relative.isEmpty && !relative.contains("\0") && !relative.hasPrefix("/")
            && relative.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }

    /// Whether `text` is 64 lowercase hex digits.
    public static func isImageID(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The path with every symbolic link resolved, or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
