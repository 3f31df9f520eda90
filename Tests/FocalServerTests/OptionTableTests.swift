import Focal
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import FocalServer

/// Every door reads the crop option table: a `/v1/plan` body and the element take every spelling
/// the table lists and agree on the canonical one, which is the only one a URL's filter takes; the reference pages
/// (`docs/options.md`, `docs/element.md`, `docs/cli.md`) and the element name exactly the table's options. (The command line is checked in `CLITests`.)
@Suite struct OptionTableTests {
    /// Every option with every spelling it lists.
    static let spellings: [(String, String)] = CropOption.all.flatMap { option in option.examples.map { (option.name, $0) } }

    /// The canonical text the table gives for one option spelled `text`.
    static func canonical(_ name: String, _ text: String) throws -> String? {
        let option = try #require(CropOption.named(name))
        var options = FocalOptions()
        try option.apply(text, to: &options)
        return option.text(of: options)
    }

    /// The URL path that gives one option.
    static func urlPath(_ option: CropOption, _ text: String) throws -> String {
        if let filter = option.filter { return "/unsafe/100x100/smart/filters:\(filter)(\(text))/a.jpg" }
        // trim is a segment of its own, before the size.
        if option.name == "trim" { return "/unsafe/trim:\(text)/100x100/smart/a.jpg" }
        // detect is the URL's smart/ segment.
        return try canonical(option.name, text) == "on" ? "/unsafe/100x100/smart/a.jpg" : "/unsafe/100x100/a.jpg"
    }

    @Test("every spelling the table lists reads back as itself once printed", arguments: spellings)
    func printedSpellingsReadBack(name: String, text: String) throws {
        let once = try Self.canonical(name, text)
        #expect(try Self.canonical(name, try #require(once)) == once, "\(name) \(text) -> \(String(describing: once))")
    }

    @Test("a URL filter reads every spelling of its option, and an unsafe URL's canonical path writes the one the table prints", arguments: spellings)
    func urlTakesOneSpelling(name: String, text: String) throws {
        let option = try #require(CropOption.named(name))
        let canonical = try Self.canonical(name, text)
        let path = try Self.urlPath(option, text)
        let request = try ImageRequest(ThumborURL(path: path))
        #expect(option.text(of: request.options) == canonical)
        guard let filter = option.filter, text != canonical, let canonical else {
            #expect("/unsafe/" + request.canonicalPath == path, "\(path) is canonical already")
            return
        }
        // Answered with a redirect to that path, which reads back as itself.
        #expect(request.canonicalPath.contains("filters:\(filter)(\(canonical))"), "\(path) → \(request.canonicalPath)")
        let again = try ImageRequest(ThumborURL(path: "/unsafe/" + request.canonicalPath))
        #expect(again.canonicalPath == request.canonicalPath)
        #expect(option.text(of: again.options) == canonical)
    }

    @Test("a /v1/plan body takes every spelling, as a string and as a JSON number or boolean, and answers the canonical one")
    func jsonTakesEverySpelling() async throws {
        try await withServer { client in
            for (name, text) in Self.spellings {
                let expected = try Self.canonical(name, text)
                var values = ["\"\(text)\""]
                if let number = Double(canonicalNumber: text) { values.append(number.canonicalText) }
                if name == "detect" { values.append(expected == "on" ? "true" : "false") }
                for value in values {
                    let body = #"{"source":{"path":"coffee.png"},"frames":[{"aspect":"1:1"}],"options":{"\#(name)":\#(value)}}"#
                    try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                        #expect(response.status == .ok, "\(name)=\(value): \(String(buffer: response.body))")
                        let options = response.json?["options"] as? [String: String]
                        #expect(options?[name] == expected, "\(name)=\(value) answered \(String(describing: options))")
                    }
                }
            }
        }
    }

    @Test("headroom, added through the table alone, changes the crop: more room above the face gives a taller crop, no lower")
    func headroomMovesTheCrop() async throws {
        try await withServer { client in
            var crops: [(y: Double, height: Double)] = []
            for headroom in ["0", "1"] {
                let body = #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"1:1"}],"options":{"zoom":"0.6","headroom":"\#(headroom)"}}"#
                try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                    let frame = (response.json?["frames"] as? [[String: Any]])?.first
                    #expect(frame?["strategy"] as? String == "faces")
                    let crop = frame?["crop"] as? [String: Any]
                    crops.append((crop?["y"] as? Double ?? -1, crop?["height"] as? Double ?? -1))
                }
            }
            #expect(crops.count == 2 && crops[1].y >= 0 && crops[1].y <= crops[0].y && crops[1].height > crops[0].height, "crops at headroom 0 and 1: \(crops)")
        }
    }

    @Test("every door refuses a value its option does not take, naming the option", arguments: CropOption.all.map(\.name))
    func everyDoorRefusesNonsense(name: String) async throws {
        let option = try #require(CropOption.named(name))
        if let filter = option.filter {
            let path = "/unsafe/100x100/smart/filters:\(filter)(nonsense)/a.jpg"
            if URLFilter.ignores(filter, "nonsense") {
                // thumbor reads it and leaves the image as it is: so does the URL.
                #expect(try ImageRequest(ThumborURL(path: path)).canonicalPath == "100x100/smart/a.jpg")
            } else {
                #expect(throws: ServerError.self) { try ImageRequest(ThumborURL(path: path)) }
            }
        }
        try await withServer { client in
            let body = #"{"source":{"path":"coffee.png"},"frames":[{"aspect":"1:1"}],"options":{"\#(name)":"nonsense"}}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains(name) == true, "\(String(buffer: response.body))")
            }
        }
    }

    @Test("an option the table does not have is refused at the URL and JSON doors, with the table's names")
    func unknownOptionsAreRefused() async throws {
        #expect(throws: ServerError.self) { try ImageRequest(ThumborURL(path: "/unsafe/100x100/smart/filters:sepia(3)/a.jpg")) }
        try await withServer { client in
            let body = #"{"source":{"path":"coffee.png"},"frames":[{"aspect":"1:1"}],"options":{"sepia":"3"}}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .badRequest)
                let message = response.json?["message"] as? String ?? ""
                #expect(message.contains("sepia") && CropOption.all.allSatisfy { message.contains($0.name) }, "\(message)")
            }
        }
    }

    @Test("the reference pages carry the table as the code declares it, and no door's section lists an option of its own")
    func docsCarryTheTable() throws {
        func page(_ name: String) throws -> String {
            try String(contentsOf: Checkout.root.appendingPathComponent("docs/\(name)"), encoding: .utf8)
        }
        let options = try page("options.md")
        let start = try #require(options.range(of: "<!-- crop-options -->\n"))
        let end = try #require(options.range(of: "<!-- /crop-options -->"))
        #expect(String(options[start.upperBound..<end.lowerBound]) == CropOption.markdownTable + "\n", "run make generated")
        // The element's attribute table lists no crop option by name: the crop option table does.
        let elementPage = try page("element.md")
        let element = try #require(elementPage.range(of: "\n## `<focal-img>`\n"))
        let rows = elementPage[element.upperBound...].split(separator: "\n").prefix { !$0.hasPrefix("## ") }.filter { $0.hasPrefix("| `") }
        let attributes = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(!attributes.isEmpty)
        #expect(Set(attributes).isDisjoint(with: CropOption.all.map(\.name)), "\(attributes)")
        // The command line's synopsis names every option's flag.
        let cli = try page("cli.md")
        let crop = try #require(cli.range(of: "\n## `focal crop`\n"))
        let synopsis = try #require(cli[crop.upperBound...].components(separatedBy: "```").dropFirst().first)
        for option in CropOption.all { #expect(synopsis.contains("--\(option.name) "), "--\(option.name)") }
    }

    @Test("the element carries the table as generated, is served as checked in, and names no option itself")
    func elementIsServedWithTheTable() async throws {
        let folder = Checkout.root.appendingPathComponent("Sources/FocalServer/Web")
        let script = try String(contentsOf: folder.appendingPathComponent("focal-img.js"), encoding: .utf8)
        for option in CropOption.all where option.name != "detect" {
            #expect(!script.contains("'\(option.name)'"), "focal-img.js names '\(option.name)' itself")
        }
        #expect(script.contains("const CROP_OPTIONS = /*focal:crop-options*/" + CropOption.elementJSON + "/*/focal:crop-options*/;"))
        try await withServer { client in
            try await client.execute(uri: "/focal-img.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == script, "served byte for byte as checked in")
            }
            try await client.execute(uri: "/v1/config", method: .get) { response in
                let names = (response.json?["options"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
                #expect(names == CropOption.all.map(\.name))
            }
        }
    }
}
