/// Finds subjects in an image. Adopt it to supply your own (a dog detector, a service's answer).
///
/// A detector asks the request for the pixels it wants, at the size it wants (decoded once per
/// size and shared between detectors), and returns boxes in pixels of the oriented full-size
/// image, origin top left; `DetectionRequest.toImage(_:from:)` maps a box found in a copy.
public protocol SubjectDetecting: Sendable {
    /// A stable name for this detector and its settings; it is part of detection cache keys.
    var identifier: String { get }
    /// Returns every subject found, in pixels of the oriented full-size image.
    func detect(_ request: DetectionRequest) async throws -> [Subject]
}

/// What a detector gets: the image's name and size, its pixels on demand, and a place to run
/// blocking work.
public struct DetectionRequest: Sendable {
    /// The input as the user named it (a path, a URL, "bytes").
    public let name: String
    /// The oriented full-size image size.
    public let imageSize: PixelSize
    /// Whether the caller wants every kind of subject (`focal detect`, a `meta` request) rather
    /// than only what a crop can use; detectors may skip work when it is false.
    public let wantsEverything: Bool
    private let executor: any BlockingExecutor
    private let provider: @Sendable (_ longSide: Int, _ enlarge: Bool) async throws -> PixelBuffer

    /// Creates a request.
    /// - Parameters:
    ///   - name: The input's name.
    ///   - imageSize: The oriented full-size image size.
    ///   - wantsEverything: Whether every kind of subject is wanted; default `true`.
    ///   - executor: Where detectors run blocking work; default a plain thread per call.
    ///   - pixels: Returns a copy of the image whose long side is `longSide` (scaled up only when
    ///     `enlarge` is true).
    public init(
        name: String, imageSize: PixelSize, wantsEverything: Bool = true, executor: any BlockingExecutor = ThreadExecutor(),
        pixels: @escaping @Sendable (_ longSide: Int, _ enlarge: Bool) async throws -> PixelBuffer
    ) {
        self.name = name
        self.imageSize = imageSize
        self.wantsEverything = wantsEverything
        self.executor = executor
        provider = pixels
    }

    /// Runs blocking work (inference, a native call) off Swift's cooperative threads, on the
    /// pipeline's bounded pool.
    /// - Throws: What `work` throws, `CancellationError`, or the pool's refusal when it is full.
    public func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await executor.run(work)
    }

    /// An RGB copy of the image whose long side is `longSide` pixels.
    /// - Parameters:
    ///   - longSide: The long side wanted.
    ///   - enlarge: Whether a smaller image is scaled up; default `false`.
    public func pixels(longSide: Int, enlarge: Bool = false) async throws -> PixelBuffer {
        try await provider(longSide, enlarge)
    }

    /// Maps a box found in `buffer` to pixels of the full-size image, clipped to it.
    public func toImage(_ box: Box, from buffer: PixelBuffer) -> Box {
        box.scaled(x: Double(imageSize.width) / Double(buffer.width), y: Double(imageSize.height) / Double(buffer.height))
            .clamped(to: imageSize)
    }
}
