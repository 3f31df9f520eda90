import FocalCore
import Foundation

/// Subjects a caller already knows, read from a JSON file: a source for users whose own service
/// found them. Boxes are in pixels of the oriented image, origin top left.
///
/// Accepted forms:
/// - an array of subjects, used for every image:
///   `[{"kind": "face", "x": 10, "y": 20, "width": 50, "height": 60, "confidence": 0.9}]`;
/// - an object mapping image names (as given, or their last path component) to such arrays;
/// - the lines `focal detect --json` prints: one object per line with `input` and `subjects`.
public struct SubjectFile: SubjectDetecting {
    /// Subjects for every image.
    let shared: [Subject]
    /// Subjects by image name.
    let byName: [String: [Subject]]
    /// The file, for the identifier.
    let path: String
    /// A digest of the file's bytes, so a changed file changes the cache key.
    let digest: UInt64

    public var identifier: String { "subjects-file/\(String(digest, radix: 16))" }

    private struct Entry: Decodable {
        var kind: SubjectKind
        var x, y, width, height: Double
        var confidence: Double?
        var subject: Subject { Subject(kind: kind, box: Box(x: x, y: y, width: width, height: height), confidence: confidence ?? 1) }
    }

    private struct DetectLine: Decodable {
        var input: String
        var subjects: [Entry]
    }

    /// Reads subjects from `path`.
    /// - Throws: `DetectionError` naming the file and what is wrong with it.
    public init(path: String) throws(DetectionError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DetectionError(.badSubjects, "\(path): cannot read the subjects file")
        }
        self.path = path
        digest = data.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
        let decoder = JSONDecoder()
        if let list = try? decoder.decode([Entry].self, from: data) {
            (shared, byName) = (list.map(\.subject), [:])
        } else if let map = try? decoder.decode([String: [Entry]].self, from: data) {
            (shared, byName) = ([], map.mapValues { $0.map(\.subject) })
        } else {
            var lines: [String: [Subject]] = [:]
            for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n").enumerated()
            where !line.allSatisfy(\.isWhitespace) {
                do {
                    let entry = try decoder.decode(DetectLine.self, from: Data(line.utf8))
                    lines[entry.input] = entry.subjects.map(\.subject)
                } catch {
                    throw DetectionError(
                        .badSubjects,
                        "\(path): line \(number + 1) is not a subject list; expected an array of {kind, x, y, width, height, confidence}, an object of such arrays by image name, or `focal detect --json` lines")
                }
            }
            (shared, byName) = ([], lines)
        }
    }

    /// The subjects listed for `name` (or its last path component), plus those for every image.
    public func subjects(for name: String) -> [Subject] {
        let base = (name as NSString).lastPathComponent
        return shared + (byName[name] ?? byName[base] ?? [])
    }

    public func detect(_ request: DetectionRequest) async throws -> [Subject] {
        subjects(for: request.name).map {
            var s = $0
            s.box = s.box.clamped(to: request.imageSize)
            return s
        }.filter { $0.box.area > 0 }
    }
}
