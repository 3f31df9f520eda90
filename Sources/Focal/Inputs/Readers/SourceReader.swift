import FocalCore
import FocalImaging

/// Where an input's bytes come from: one reader per kind of location, found in one list
/// (`FocalPipeline.sourceReaders`) by the location it reads. Each owns how its sources are named
/// (`http://…`, `s3://…`, `color:…`; a name no reader knows is a file path), fetched and
/// identified (a file's bytes hashed, a URL downloaded, an object known by its ETag, a blank
/// named by its colour) and opened; the pipeline, the command line and the service ask the list
/// and never switch on a location themselves. A new kind of source is a reader here, its line in
/// the list, and its case of `ImageInput.Location`: three files, no door touched.
protocol SourceReader: Sendable {
    /// The scheme of the locations it reads (`ImageInput.Location.scheme`): `file`, `data`,
    /// `url`, `object`, `blank`.
    var name: String { get }
    /// The input a name in a request or on a command line is, when it is in this reader's
    /// scheme; nil when it is not.
    /// - Parameters:
    ///   - text: The name as written (percent-decoding and imagor's `b64:` already undone).
    ///   - size: The output's size, for a source made rather than read (a blank), when the door
    ///     knows one.
    ///   - limits: The limits a made source is made within.
    /// - Throws: The reader's error when the name is in its scheme but malformed.
    func input(named text: String, size: PixelSize?, limits: ImageLimits) throws -> ImageInput?
    /// The input brought into memory when it needs to be and identified when it has no identity
    /// yet (and `identify` asks for one); runs inside an admitted job, its bytes reserved as they
    /// arrive. Returns the location to open and the identity.
    func fetched(_ input: ImageInput, identity: ImageIdentity?, identify: Bool, in pipeline: FocalPipeline) async throws
        -> (ImageInput.Location, ImageIdentity?)
    /// The location as bytes or a file the decoder opens (`.data` or `.file`): an object is read
    /// here, still the version the job identified (`expected`).
    func readable(_ location: ImageInput.Location, identifiedAs expected: String?, in pipeline: FocalPipeline) async throws -> ImageInput.Location
}

extension SourceReader {
    /// No name of its own (files are the names no reader claims; bytes have none).
    func input(named text: String, size: PixelSize?, limits: ImageLimits) throws -> ImageInput? { nil }

    /// The location as it is: already bytes or a file.
    func readable(_ location: ImageInput.Location, identifiedAs expected: String?, in pipeline: FocalPipeline) async throws -> ImageInput.Location {
        location
    }
}

extension FocalPipeline {
    /// The readers, one per kind of location.
    static let sourceReaders: [any SourceReader] = [FileReader(), DataReader(), URLReader(), ObjectReader(), BlankReader()]

    /// The reader of `location`.
    func reader(of location: ImageInput.Location) throws -> any SourceReader {
        guard let reader = Self.sourceReaders.first(where: { $0.name == location.scheme }) else {
            throw ImagingError(.internalFailure, "no reader for this kind of input")
        }
        return reader
    }

    /// The content identity of loaded bytes, unless the input has one or none is asked for.
    func identified(_ location: ImageInput.Location, identity: ImageIdentity?, identify: Bool) async throws -> (ImageInput.Location, ImageIdentity?) {
        guard identity == nil, identify, configuration.identifyByContent, case let .data(data, _) = location else { return (location, identity) }
        return (location, try await pool.run { ImageIdentity(digestOf: data) })
    }
}
