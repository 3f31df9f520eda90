import Foundation
import Synchronization

/// What a cached result is filed under: the image's identity and everything that changes the
/// output's pixels or encoding.
///
/// The options part is the canonical JSON encoding (sorted keys) of the resolved `FocalOptions`, so
/// a field added to the options is part of every key without anyone remembering to add it here.
/// Encodings are remembered per distinct options value: a cache hit costs a hash lookup, not an
/// encode (`make bench`'s cached rows measured 0.75 of the string-built key without this).
struct ResultKey: Hashable, Sendable, CustomStringConvertible {
    /// The canonical text of the key; equal texts mean interchangeable results.
    let text: String

    /// Changes when the meaning of a part of the key does (4: a redaction hides faces in the
    /// overlays too, and confirms its extra candidates).
    static let schema = "focal-result-5"

    /// Encodings of options seen lately; emptied when it reaches `rememberedMost`.
    private static let remembered = Mutex<[FocalOptions: String]>([:])
    private static let rememberedMost = 4096

    /// - Parameters:
    ///   - identity: The image's content, cache name or (for shared jobs only) location.
    ///   - target: The target rule's key: the output size or aspect, or how it is derived.
    ///   - options: Crop, detection and encoding options. The fallback is not part of it (only
    ///     complete results are cached), nor are detection settings when nothing is detected.
    ///   - detectors: The detector signature, which changes with models and thresholds.
    init(identity: ImageIdentity, target: String, options: FocalOptions, detectors: String) {
        var options = options
        options.fallback = .error
        let detects = options.crop.needsDetection
        if !detects {
            options.accuracy = .fast
            options.crop.detect = false
            options.crop.minimumConfidence = [:]
        }
        // The identity is a digest or a location and the target a rule's key: neither holds a
        // `|` that could make two keys read alike, and the options' JSON comes last.
        text = [Self.schema, identity.description, target, detects ? detectors : "off", Self.encoded(options)].joined(separator: "|")
    }

    /// The canonical JSON of normalised options, remembered.
    private static func encoded(_ options: FocalOptions) -> String {
        if let known = remembered.withLock({ $0[options] }) { return known }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain values cannot fail; were it to, the text would still be unique to them.
        let text = (try? encoder.encode(options)).map { String(decoding: $0, as: UTF8.self) } ?? "\(options)"
        remembered.withLock { table in
            if table.count >= rememberedMost { table.removeAll(keepingCapacity: true) }
            table[options] = text
        }
        return text
    }

    /// A file name for the key: its SHA-256 in hex.
    var fileName: String {
        ContentDigest.of(Data(text.utf8))
    }

    var description: String { text }
}
