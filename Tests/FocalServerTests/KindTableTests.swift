import Focal
import FocalTestSupport
import Foundation
import HummingbirdTesting
import NIOCore
import Testing

@testable import FocalServer

/// Every place that shows or ranks a subject kind reads `SubjectKind.traits`: the page's overlay
/// script and style sheet carry the table as generated, and neither spells a kind's colour itself.
@Suite struct KindTableTests {
    @Test("overlay.js and app.css carry each kind's label and colour as generated, and spell none elsewhere")
    func pageCarriesTheKindTable() async throws {
        let folder = Checkout.root.appendingPathComponent("Sources/FocalServer/Web")
        let overlay = try String(contentsOf: folder.appendingPathComponent("overlay.js"), encoding: .utf8)
        let css = try String(contentsOf: folder.appendingPathComponent("app.css"), encoding: .utf8)
        let kinds = try #require(GeneratedRegion.all.first { $0.name == "kinds" })
        let colours = try #require(GeneratedRegion.all.first { $0.name == "kind-colours" })
        let cssOutside = css.replacingOccurrences(of: try #require(colours.current(in: css)), with: "")
        let overlayOutside = overlay.replacingOccurrences(of: try #require(kinds.current(in: overlay)), with: "")
        for row in SubjectKindTraits.builtIn {
            #expect(kinds.text.contains("\"\(row.kind.rawValue)\": {\"label\": \"\(row.label)\", \"colour\": \"\(row.colour)\"}"))
            #expect(colours.text.contains("--kind-\(row.kind.rawValue): \(row.colour);"))
            #expect(!cssOutside.contains(row.colour), "app.css spells \(row.kind)'s colour itself")
            #expect(!overlayOutside.contains("'\(row.label)'"), "overlay.js names \(row.kind) itself")
        }
        try await withServer { client in
            try await client.execute(uri: "/overlay.js", method: .get) { response in
                #expect(String(buffer: response.body) == overlay, "served byte for byte as checked in")
            }
        }
    }

    @Test("every generated region of the checkout is as the code's tables write it (make generated)")
    func generatedRegionsAreFresh() throws {
        for region in GeneratedRegion.all {
            let content = try String(contentsOf: Checkout.root.appendingPathComponent(region.file), encoding: .utf8)
            let current = region.current(in: content)
            #expect(current != nil, "\(region.file) lacks the \(region.name) markers, once each")
            #expect(current == region.text, "\(region.file): \(region.name) is stale: run make generated")
        }
    }

    @Test("writing the regions fills a file's markers and leaves the rest; a second write changes nothing")
    func writingRegions() throws {
        let folder = try Scratch()
        defer { folder.remove() }
        for file in Set(GeneratedRegion.all.map(\.file)) {
            var text = try String(contentsOf: Checkout.root.appendingPathComponent(file), encoding: .utf8)
            for region in GeneratedRegion.all where region.file == file {
                text = GeneratedRegionBlanking.blank(region, in: text)
            }
            let url = folder.url.appendingPathComponent(file)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let written = try GeneratedRegion.writeAll(root: folder.url)
        #expect(Set(written) == Set(GeneratedRegion.all.map(\.file)))
        for file in written {
            let made = try String(contentsOf: folder.url.appendingPathComponent(file), encoding: .utf8)
            let checkedIn = try String(contentsOf: Checkout.root.appendingPathComponent(file), encoding: .utf8)
            #expect(made == checkedIn, "\(file)")
        }
        #expect(try GeneratedRegion.writeAll(root: folder.url).isEmpty)
    }

    @Test("each kind's colour parses, and kinds a person tells apart are drawn apart")
    func coloursAreDistinct() {
        let colours = SubjectKindTraits.builtIn.map(\.colour)
        #expect(Set(colours).count == colours.count)
        for kind in SubjectKindTraits.builtIn.map(\.kind) {
            let rgb = kind.traits.rgb
            #expect(Int(rgb.red) + Int(rgb.green) + Int(rgb.blue) > 0, "\(kind): \(kind.traits.colour) does not parse")
        }
    }
}

/// A region emptied, as a file looks before its first `make generated`.
enum GeneratedRegionBlanking {
    static func blank(_ region: GeneratedRegion, in text: String) -> String {
        guard let current = region.current(in: text), !current.isEmpty else { return text }
        return text.replacingOccurrences(of: current, with: "")
    }
}
