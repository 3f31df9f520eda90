import Foundation
public import Logging

/// A log handler that writes one JSON object per line to standard error: `time`, `level`,
/// `label`, `message` and every metadata field. What log collectors read without parsing rules.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private static let lock = NSLock()

    /// Creates a handler for `label` at `level`.
    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds]),
            "level": event.level.rawValue, "label": label, "message": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        Self.lock.withLock { FileHandle.standardError.write(data + Data("\n".utf8)) }
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case let .string(text): text
        case let .stringConvertible(convertible):
            if let number = convertible as? Int { number } else if let number = convertible as? Double { number } else { convertible.description }
        case let .array(values): values.map(json)
        case let .dictionary(values): values.mapValues(json)
        }
    }
}
