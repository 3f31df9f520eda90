public import FocalCore
public import Foundation

/// Where an image comes from, and optionally the name its results are cached under.
///
/// ```swift
/// .file("team.jpg")
/// .data(upload, name: "upload.jpg")
/// .url(URL(string: "https://example.com/cat.jpg")!, cacheName: "user-42-avatar-v3")
/// .object(ObjectAddress("s3://photos/team/offsite.jpg")!)
/// ```
public struct ImageInput: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of source.
    public enum Location: Hashable, Sendable {
        /// A file on disk.
        case file(String)
        /// Encoded bytes; `name` labels messages (a file name or URL).
        case data(Data, name: String)
        /// An http or https URL, fetched with the pipeline's `NetworkSettings`.
        case url(URL)
        /// An object in a bucket, read with the pipeline's `ObjectStorageSettings`.
        case object(ObjectAddress)
        /// A blank image of one colour (imagor's `color:` source), made, not read.
        case blank(BlankImage)
    }

    /// Where the image is.
    public var location: Location
    /// The identity results are cached under. When nil the content's SHA-256 is used, so a URL
    /// is fetched before its cache entry can be found; give a name to skip the fetch on a hit.
    public var cacheName: String?
    /// The SHA-256 of the image's bytes (64 hex digits), when the caller already knows it: it is
    /// then the identity without reading the bytes, and the key saved crops are found under.
    /// It is trusted: a wrong one serves another image's results. Default nil.
    public var contentID: String?

    /// Creates an input.
    /// - Parameters:
    ///   - location: Where the image is.
    ///   - cacheName: Your name for this exact image; default nil (identified by content).
    ///   - contentID: The SHA-256 of its bytes in hex, when known; default nil.
    public init(_ location: Location, cacheName: String? = nil, contentID: String? = nil) {
        self.location = location
        self.cacheName = cacheName
        self.contentID = contentID
    }

    /// A file on disk.
    public static func file(_ path: String, cacheName: String? = nil, contentID: String? = nil) -> ImageInput {
        ImageInput(.file(path), cacheName: cacheName, contentID: contentID)
    }

    /// Encoded bytes; `name` labels error messages.
    public static func data(_ data: Data, name: String = "bytes", cacheName: String? = nil) -> ImageInput {
        ImageInput(.data(data, name: name), cacheName: cacheName)
    }

    /// An http or https URL.
    public static func url(_ url: URL, cacheName: String? = nil) -> ImageInput {
        ImageInput(.url(url), cacheName: cacheName)
    }

    /// A blank image of one colour, named by its colour and size (so its results are cached
    /// without making it first).
    public static func blank(_ blank: BlankImage) -> ImageInput {
        ImageInput(.blank(blank), cacheName: blank.description)
    }

    /// An object in a bucket.
    public static func object(_ address: ObjectAddress, cacheName: String? = nil, contentID: String? = nil) -> ImageInput {
        ImageInput(.object(address), cacheName: cacheName, contentID: contentID)
    }

    /// The input a name in a request or on a command line is, by the reader of its scheme
    /// (`http://` and `https://` URLs, `s3://BUCKET/KEY` objects, `color:` blanks); nil for a
    /// name in no reader's scheme, which the door reads as a file path under its own rules.
    /// - Parameters:
    ///   - text: The name, decoded (no percent-encoding, no `b64:`).
    ///   - size: The output's size, which a made source (`color:`) needs; default nil.
    ///   - limits: The limits a made source is made within; default `ImageLimits.default`.
    /// - Throws: The reader's typed error for a malformed name: `ImagingError`
    ///   (`request.invalid`) for a URL, `StorageError` (`storage.invalid_address`) for an
    ///   object, `PlanningError.invalidOption` for a colour or a missing size.
    public static func named(_ text: String, size: PixelSize? = nil, limits: ImageLimits = .default) throws -> ImageInput? {
        for reader in FocalPipeline.sourceReaders {
            if let input = try reader.input(named: text, size: size, limits: limits) { return input }
        }
        return nil
    }

    /// A command-line argument: an http(s) URL, an `s3://BUCKET/KEY` address, or else a file
    /// path (a malformed `s3://` address or URL stays a path, refused as such by the pipeline).
    /// `named(_:size:limits:)` says what is malformed instead.
    public static func argument(_ text: String) -> ImageInput {
        (try? named(text)) ?? .file(text)
    }

    /// Whether the image must be fetched over the network (a URL or an object).
    public var isRemote: Bool {
        switch location {
        case .url, .object: true
        case .file, .data, .blank: false
        }
    }

    public var description: String {
        switch location {
        case let .file(path): path
        case let .data(_, name): name
        case let .blank(blank): blank.description
        case let .url(url): url.absoluteString
        case let .object(address): address.description
        }
    }
}

extension ImageInput.Location {
    /// The kind of location, by which its reader is found (`FocalPipeline.sourceReaders`):
    /// `file`, `data`, `url`, `object` or `blank`.
    var scheme: String {
        switch self {
        case .file: "file"
        case .data: "data"
        case .url: "url"
        case .object: "object"
        case .blank: "blank"
        }
    }
}
