import Foundation

/// What a cached result is filed under: the image's identity and everything that changes the
/// output's pixels or encoding.
///
/// The key is the canonical JSON encoding (sorted keys) of the resolved `FocalOptions`, so a field
/// added to the options is part of every key without anyone remembering to add it here.
struct ResultKey: Hashable, Sendable, CustomStringConvertible {
    /// The canonical text of the key; equal texts mean interchangeable results.
    let text: String

    /// What is encoded; `version` changes when the meaning of a field does.
    private struct Canonical: Encodable {
        let version = 2
        let identity: String
        let target: String
        let options: FocalOptions
        let detectors: String
    }

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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let canonical = Canonical(identity: identity.description, target: target, options: options, detectors: detects ? detectors : "off")
        // Encoding these plain values cannot fail; were it to, the key would still be unique to them.
        let data = (try? encoder.encode(canonical)) ?? Data("\(canonical)".utf8)
        text = String(decoding: data, as: UTF8.self)
    }

    /// A file name for the key: its SHA-256 in hex.
    var fileName: String {
        ContentDigest.of(Data(text.utf8))
    }

    var description: String { text }
}
