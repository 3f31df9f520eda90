import Foundation

/// What a cached result is filed under: the image's identity and everything that changes the
/// output's pixels or encoding.
struct ResultKey: Hashable, Sendable, CustomStringConvertible {
    /// The canonical text of the key; equal texts mean interchangeable results.
    let text: String

    /// - Parameters:
    ///   - identity: `name:<cache name>` or `sha256:<digest>`.
    ///   - target: The target rule's key: the output size or aspect, or how it is derived.
    ///   - options: Crop, detection and encoding options (the fallback is not part of it: only
    ///     complete results are cached).
    ///   - detectors: The detector signature, which changes with models and thresholds.
    init(identity: String, target: String, options: FocalOptions, detectors: String) {
        let crop = options.crop
        let override: String =
            switch crop.override {
            case nil: "none"
            case let .focus(x, y)?: "focus:\(x),\(y)"
            case let .region(rect)?: "region:\(rect.x),\(rect.y),\(rect.width),\(rect.height)"
            case let .relativeFocus(x, y)?: "relative:\(x),\(y)"
            }
        let confidence = crop.minimumConfidence.sorted { $0.key.rawValue < $1.key.rawValue }
            .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
        let detects = crop.needsDetection
        text = [
            "focal-result-1", identity, "target=\(target)", "scheme=\(crop.scheme.rawValue)", "padding=\(crop.padding)",
            "headroom=\(crop.faceHeadroom)", "zoom=\(crop.zoom)", "override=\(override)", "min=\(confidence)",
            "detect=\(detects ? detectors : "off")", "accuracy=\(detects ? options.accuracy.rawValue : "-")",
            "format=\(options.format?.rawValue ?? "same")", "quality=\(options.quality)", "flip=\(options.flip)",
            "bounds=\(crop.bounds.map(\.description) ?? "none")", "saved=\(options.savedCropRevision.map(String.init) ?? "none")",
        ].joined(separator: "|")
    }

    /// A file name for the key: its SHA-256 in hex.
    var fileName: String {
        ContentDigest.of(Data(text.utf8))
    }

    var description: String { text }
}
