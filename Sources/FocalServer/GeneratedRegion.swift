import Focal
import FocalImaging
public import Foundation

/// A part of a checked-in file written from the code's tables, between two markers: the reference
/// pages' crop option, URL filter, object class and error tables (`docs/options.md`, `docs/url.md`,
/// `docs/http-api.md`), `focal crop`'s flags for the crop options, and the web page's
/// option, kind and format tables (`focal-img.js`, `overlay.js`, `app.css`). The files are served and shipped exactly as checked in;
/// `make generated` rewrites every region and a test fails when one is stale.
public struct GeneratedRegion: Sendable {
    /// The file, relative to the checkout's root.
    public let file: String
    /// The region's name in its markers.
    public let name: String
    /// The opening marker.
    let open: String
    /// The closing marker.
    let close: String
    /// What belongs between the markers.
    public let text: String

    /// A region of a script or style sheet: `/*focal:NAME*/…/*/focal:NAME*/`.
    static func code(_ file: String, _ name: String, _ text: String) -> GeneratedRegion {
        GeneratedRegion(file: file, name: name, open: "/*focal:\(name)*/", close: "/*/focal:\(name)*/", text: text)
    }

    /// Every generated region.
    public static var all: [GeneratedRegion] {
        [
            GeneratedRegion(
                file: "docs/options.md", name: "crop-options", open: "<!-- crop-options -->\n", close: "<!-- /crop-options -->",
                text: CropOption.markdownTable + "\n"),
            GeneratedRegion(
                file: "docs/url.md", name: "url-filters", open: "<!-- url-filters -->\n", close: "<!-- /url-filters -->",
                text: URLFilter.markdownTable + "\n"),
            GeneratedRegion(
                file: "docs/options.md", name: "object-classes", open: "<!-- object-classes -->\n", close: "<!-- /object-classes -->",
                text: objectClasses + "\n"),
            GeneratedRegion(
                file: "docs/http-api.md", name: "error-statuses", open: "<!-- error-statuses -->\n", close: "<!-- /error-statuses -->",
                text: ErrorStatus.markdownTable + "\n"),
            GeneratedRegion(
                file: "Sources/focal/CropCommand.swift", name: "crop-option-flags", open: "// focal:crop-option-flags\n",
                close: "    // /focal:crop-option-flags", text: cropOptionFlags),
            .code("Sources/FocalServer/Web/focal-img.js", "crop-options", CropOption.elementJSON),
            .code("Sources/FocalServer/Web/focal-img.js", "formats", formatsJSON),
            .code("Sources/FocalServer/Web/overlay.js", "kinds", kindsJSON),
            .code("Sources/FocalServer/Web/app.css", "kind-colours", "\n" + kindColours + "\n  "),
        ]
    }

    /// The object detector's classes, as `kinds(…)` names them, with the other words read for them.
    static var objectClasses: String {
        let other = Dictionary(grouping: COCOClasses.synonyms, by: \.value).mapValues { $0.map(\.key).sorted() }
        return COCOClasses.names.map { name in
            "`\(name)`" + (other[name].map { " (" + $0.map { "`\($0)`" }.joined(separator: ", ") + ")" } ?? "")
        }.joined(separator: ", ")
    }

    /// What `content` holds between this region's markers, or nil when the markers are not there once each.
    public func current(in content: String) -> String? {
        let opens = content.components(separatedBy: open)
        guard opens.count == 2, let start = content.range(of: open),
            let end = content.range(of: close, range: start.upperBound..<content.endIndex),
            content.components(separatedBy: close).count == 2
        else { return nil }
        return String(content[start.upperBound..<end.lowerBound])
    }

    /// `content` with `text` between the markers (unchanged when they are missing).
    public func applied(to content: String) -> String {
        guard current(in: content) != nil, let start = content.range(of: open),
            let end = content.range(of: close, range: start.upperBound..<content.endIndex)
        else { return content }
        return content.replacingCharacters(in: start.upperBound..<end.lowerBound, with: text)
    }

    /// Rewrites every stale region under `root` (each file to a temporary name, then renamed).
    /// - Returns: The files rewritten.
    /// - Throws: When a file cannot be read or written, or lacks a region's markers.
    public static func writeAll(root: URL) throws -> [String] {
        var written: [String] = []
        for file in Set(all.map(\.file)).sorted() {
            let url = root.appendingPathComponent(file)
            let before = try String(contentsOf: url, encoding: .utf8)
            var after = before
            for region in all where region.file == file {
                guard region.current(in: after) != nil else {
                    throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "\(file) lacks the \(region.name) markers"])
                }
                after = region.applied(to: after)
            }
            guard after != before else { continue }
            try Data(after.utf8).write(to: url, options: .atomic)
            written.append(file)
        }
        return written
    }

    /// `{"face":{"label":"Face","colour":"#22c55e"},...}`: each built-in kind's label and colour,
    /// one per line.
    static var kindsJSON: String {
        let entries = SubjectKindTraits.builtIn.map { row in
            "  \"\(row.kind.rawValue)\": {\"label\": \"\(row.label)\", \"colour\": \"\(row.colour)\"}"
        }
        return "{\n" + entries.joined(separator: ",\n") + "\n}"
    }

    /// `--kind-face: #22c55e;` and so on, one line per built-in kind.
    /// `focal crop`'s flag for each crop option but accuracy (the detection options' own): a
    /// property named for the option (`min-face`, `minFace`), which ArgumentParser spells back.
    static var cropOptionFlags: String {
        CropOption.all.filter { $0.name != "accuracy" }.map { option in
            let words = option.name.split(separator: "-")
            let property = (words.first.map(String.init) ?? "") + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            return "    @Option(parsing: .unconditional, help: CropOption.help(\"\(option.name)\")) var \(property): String?\n"
        }.joined()
    }

    static var kindColours: String {
        SubjectKindTraits.builtIn.map { "  --kind-\($0.kind.rawValue): \($0.colour);" }.joined(separator: "\n")
    }

    /// The output formats for the element's `Accept` header, the automatic format's choices first
    /// (best first), then the rest: each one's media type and a sample a browser decodes to tell
    /// whether it can (null for formats every browser decodes).
    static var formatsJSON: String {
        let automatic = FormatDescriptor.all.filter { $0.automaticRank != nil }.sorted { ($0.automaticRank ?? 0) < ($1.automaticRank ?? 0) }
        let rest = FormatDescriptor.all.filter { $0.automaticRank == nil && $0.browsers }
        let entries = (automatic + rest).map { format in
            "  {\"type\": \"\(format.mediaType)\", \"sample\": " + (format.browserSample.map { "\"\($0)\"" } ?? "null") + "}"
        }
        return "[\n" + entries.joined(separator: ",\n") + "\n]"
    }
}
