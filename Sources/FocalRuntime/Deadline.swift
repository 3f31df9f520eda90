public import FocalCore

/// The moment by which one input's work must be done.
public struct Deadline: Hashable, Sendable {
    /// When it passes.
    public let instant: ContinuousClock.Instant
    /// How long it was set for, for messages.
    public let duration: Duration

    /// A deadline `duration` from now.
    public init(in duration: Duration) {
        self.duration = duration
        instant = ContinuousClock.now.advanced(by: duration)
    }

    /// Whether it has passed.
    public var hasPassed: Bool { ContinuousClock.now >= instant }

    /// Whole milliseconds left, at least 1 while it has not passed, 0 once it has; at most
    /// `Int32.max` so that it can cross into C.
    public var millisecondsLeft: Int32 {
        let left = instant - ContinuousClock.now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return ms >= Double(Int32.max) ? Int32.max : max(1, Int32(ms.rounded(.up)))
    }

    /// Throws when the deadline has passed.
    /// - Parameter source: The input's name, for the message.
    /// - Throws: `LimitExceeded` with code `input.timeout`.
    public func check(source: String? = nil) throws(LimitExceeded) {
        if hasPassed { throw expired(source: source) }
    }

    /// The error for a passed deadline.
    public func expired(source: String? = nil) -> LimitExceeded {
        LimitExceeded(.inputTimeout, limit: "timeout", allowed: "\(duration)", actual: "more", source: source)
    }
}
