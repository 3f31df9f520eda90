public import FocalCore
import FocalRuntime
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

    /// The largest subjects file read, in bytes (16 MiB).
    public static let maxFileBytes = 16 << 20

    /// Reads subjects from `path`.
    /// - Parameters:
    ///   - path: The JSON file.
    ///   - maxSubjects: The most subjects the whole file may hold; default `ImageLimits.default.maxSubjects`.
    /// - Throws: `DetectionError` (`request.invalid`) naming the file and what is wrong with it.
    public init(path: String, maxSubjects: Int = ImageLimits.default.maxSubjects) throws(DetectionError) {
        let data: Data
        do {
            data = try InputFile.read(path, maxBytes: Self.maxFileBytes)
        } catch {
            throw DetectionError(
                .requestInvalid, "\(path.oneLine): cannot read the subjects file: \(error.message)",
                publicMessage: "the subjects file cannot be read", cause: error.cause)
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
                        .requestInvalid,
                        "\(path.oneLine): line \(number + 1) is not a subject list; expected an array of {kind, x, y, width, height, confidence}, an object of such arrays by image name, or `focal detect --json` lines")
                }
            }
            (shared, byName) = ([], lines)
        }
        let count = shared.count + byName.values.reduce(0) { $0 + $1.count }
        guard count <= maxSubjects else {
            throw DetectionError(
                .requestInvalid, "\(path.oneLine): holds \(count) subjects; at most \(maxSubjects) are accepted (ImageLimits.maxSubjects)",
                publicMessage: "\(count) subjects given; at most \(maxSubjects) are accepted")
        }
        for subject in shared + byName.values.joined()
        where !(subject.isFinite && subject.box.width >= 0 && subject.box.height >= 0 && (0...1).contains(subject.confidence)) {
            throw DetectionError(
                .requestInvalid,
                "\(path.oneLine): a \(subject.kind.rawValue) has a box or confidence out of range; boxes are finite pixels with width and height of zero or more, confidence 0...1")
        }
        let known = Set(SubjectKindTraits.all.map(\.kind))
        if let unknown = (shared + byName.values.joined()).first(where: { !known.contains($0.kind) }) {
            let names = SubjectKindTraits.all.map(\.kind.rawValue).joined(separator: ", ")
            throw DetectionError(
                .requestInvalid,
                "\(path.oneLine): '\(unknown.kind.rawValue.oneLine)' is not a kind Focal knows: \(names) (a library's own kinds are registered with SubjectKindTraits.register)",
                publicMessage: "a subject's kind is not one Focal knows: \(names)")
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
