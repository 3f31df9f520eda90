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
        var members: [(String, JSONText)] = [
            ("time", .string(JSONText.timestamp())), ("level", .string(event.level.rawValue)), ("label", .string(label)),
            ("message", .string(event.message.description)),
        ]
        let fields = metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 })
        for (key, value) in fields where !["time", "level", "label", "message"].contains(key) {
            members.append((key, Self.json(value)))
        }
        members.sort { $0.0 < $1.0 }
        var line = JSONText.object(members).text
        line += "\n"
        // `write(_:)` traps when the write fails (standard error closed or a full pipe's EPIPE); a
        // log line that cannot be written is dropped, and the server goes on.
        Self.lock.withLock { try? FileHandle.standardError.write(contentsOf: Data(line.utf8)) }
    }

    static func json(_ value: Logger.Metadata.Value) -> JSONText {
        switch value {
        case let .string(text): .string(text)
        case let .stringConvertible(convertible):
            if let number = convertible as? Int {
                .int(number)
            } else if let number = convertible as? Double {
                .double(number)
            } else if let number = convertible as? UInt, let int = Int(exactly: number) {
                .int(int)
            } else {
                .string(convertible.description)
            }
        case let .array(values): .array(values.map(json))
        case let .dictionary(values): .object(values.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }
}
