import Foundation
public import Focal
import FocalImaging

/// A labelled photo folder's `labels.json` (see `eval/README.md` of the shared set).
public struct EvalLabels: Decodable, Sendable {
    /// One labelled box.
    public struct LabeledBox: Decodable, Sendable {
        /// `face`, `cat`, `dog` or `person`.
        public var kind: String
        /// Pixels, origin top left.
        public var x, y, w, h: Double
        /// Heavily occluded, turned away or very dark: optional to keep.
        public var difficult: Bool?

        /// The box as geometry.
        public var box: Box { Box(x: x, y: y, width: w, height: h) }
        /// Whether it counts when scoring.
        public var counts: Bool { difficult != true }
    }

    /// One labelled photo.
    public struct LabeledImage: Decodable, Sendable {
        /// Stored size.
        public var width, height: Int
        /// Every labelled box.
        public var boxes: [LabeledBox]
        /// The kinds for which every visible instance is labelled.
        public var exhaustive_kinds: [String]?
    }

    /// Photos by file name.
    public var images: [String: LabeledImage]

    /// Reads `labels.json` from `directory`.
    /// - Throws: an error naming the file when it is missing or malformed.
    public static func load(directory: String) throws -> EvalLabels {
        let path = directory + "/labels.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImagingError(.inputNotFound, "no labels.json here; `focal eval` needs a folder with labels.json", source: path)
        }
        do {
            return try JSONDecoder().decode(EvalLabels.self, from: data)
        } catch {
            throw ImagingError(.requestInvalid, "is not a valid labels file: \(error)", source: path)
        }
    }
}
