public import FocalCore

/// What an animated image's header says: how many frames, how long each shows, how often it plays.
public struct Animation: Hashable, Sendable, Codable {
    /// The number of frames.
    public let frames: Int
    /// The canvas every frame covers (the image's size).
    public let canvas: PixelSize
    /// How long each frame shows, in milliseconds, one per frame (100 where the file says none).
    public let delays: [Int]
    /// How many times it plays; 0 for ever.
    public let loop: Int

    /// Creates an animation's description.
    /// - Parameters:
    ///   - frames: Frames, at least 2.
    ///   - canvas: The size of each frame.
    ///   - delays: Milliseconds per frame; missing or negative entries become `defaultDelay`.
    ///   - loop: Plays; 0 for ever.
    public init(frames: Int, canvas: PixelSize, delays: [Int], loop: Int) {
        self.frames = frames
        self.canvas = canvas
        self.delays = (0..<frames).map { $0 < delays.count && delays[$0] >= 0 ? delays[$0] : Self.defaultDelay }
        self.loop = max(0, loop)
    }

    /// The delay of a frame whose file gives none: 100 ms, as browsers show it.
    public static let defaultDelay = 100

    /// When each frame starts, in milliseconds from the first.
    public var startTimes: [Int] {
        var time = 0
        return delays.map { delay in
            defer { time = time.addingReportingOverflow(delay).overflow ? time : time + delay }
            return time
        }
    }

    /// The pixels decoding every frame costs: frames × canvas (saturating).
    public var decodedPixels: Int { frames.multipliedReportingOverflow(by: canvas.area).overflow ? Int.max : frames * canvas.area }

    /// The bytes every frame holds decoded, 4 a pixel (RGBA, saturating): what rendering the
    /// animation is assumed to hold of its source (libvips composes an animated WebP's frames
    /// and keeps them).
    public var decodedBytes: Int { decodedPixels.multipliedReportingOverflow(by: 4).overflow ? Int.max : decodedPixels * 4 }
}
