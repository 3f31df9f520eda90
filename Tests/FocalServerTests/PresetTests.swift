import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// `focal serve --preset NAME=OPTIONS`, used as `filters:preset(NAME)`, and `--presets-only`.
@Suite struct PresetTests {
    static let thumb = "thumb=200x100/smart/filters:kinds(face):format(png)"

    @Test func presetsAreReadFromFlagsAndTheVariable() throws {
        let flags = try ServerConfiguration(flags: ["preset": [Self.thumb, "wide=fit-in/400x200/filters:fill(ffffff):round_corner(10,255,255,255)"]], environment: [:])
        #expect(flags.presets.keys.sorted() == ["thumb", "wide"])
        #expect(flags.presets["thumb"]?.options == ["200x100", "smart"])
        #expect(flags.presets["thumb"]?.filters == ["kinds(face)", "format(png)"])
        // In the variable a comma inside a preset's filters stays in it.
        let variable = try ServerConfiguration(
            flags: [:], environment: ["FOCAL_PRESETS": Self.thumb + ",wide=fit-in/400x200/filters:round_corner(10,255,255,255)", "FOCAL_PRESETS_ONLY": "1"])
        #expect(variable.presets["wide"]?.filters == ["round_corner(10,255,255,255)"])
        #expect(variable.presetsOnly && variable.presetFilters == ["expire"])
        for bad in ["thumb", "Thumb=200x100", "thumb=200x100/filters:nope()", "thumb=200x100/filters:preset(x)", "thumb=meta/200x100"] {
            #expect(throws: (any Error).self, "\(bad)") { try ServerConfiguration(flags: ["preset": [bad]], environment: [:]) }
        }
        #expect(throws: (any Error).self) { try ServerConfiguration(flags: ["preset": [Self.thumb, Self.thumb]], environment: [:]) }
    }

    /// A preset's URL answers what its expansion answers, under one result key; the URL's own
    /// filters apply after the preset's; a size beside a preset, an unknown or a second preset
    /// are refused.
    @Test func aPresetIsReadAsTheOptionsItStandsFor() async throws {
        try await withServer({
            $0.presets = ["thumb": try! Preset(text: Self.thumb), "grey": try! Preset(text: "grey=filters:grayscale():format(png)")]
        }) { client in
            // A preset of filters alone leaves the size to the URL (as `<focal-img preset>` writes it).
            let (sized, _) = try await FilterRouteTests.get(client, "/unsafe/120x80/smart/filters:preset(grey)/astronaut.png")
            #expect(try FilterRouteTests.decode(sized).size == PixelSize(width: 120, height: 80))
            let (viaPreset, presetHeaders) = try await FilterRouteTests.get(client, "/unsafe/filters:preset(thumb)/astronaut.png")
            let (spelled, spelledHeaders) = try await FilterRouteTests.get(client, "/unsafe/200x100/smart/filters:kinds(face):format(png)/astronaut.png")
            #expect(viaPreset == spelled)
            #expect(presetHeaders[.contentType] == "image/png")
            #expect(presetHeaders[.eTag] == spelledHeaders[.eTag], "one result for both spellings")
            let (grey, _) = try await FilterRouteTests.get(client, "/unsafe/filters:preset(thumb):grayscale()/astronaut.png")
            let pixels = try FilterRouteTests.pixels(grey)
            #expect(pixels.size == PixelSize(width: 200, height: 100))
            let bytes = pixels.bytes
            var coloured = 0
            for i in stride(from: 0, to: bytes.count, by: 3) where bytes[i] != bytes[i + 1] || bytes[i + 1] != bytes[i + 2] { coloured += 1 }
            #expect(coloured == 0, "the URL's grayscale() applies after the preset")
            for (uri, says) in [
                ("/unsafe/300x300/filters:preset(thumb)/astronaut.png", "gives no size"), ("/unsafe/filters:preset(nope)/astronaut.png", "no preset is named"),
                ("/unsafe/filters:preset(thumb):preset(thumb)/astronaut.png", "one preset"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect((response.json?["message"] as? String ?? "").contains(says), "\(uri)")
                }
            }
        }
    }

    /// `/v1/plan`'s `"preset"`: a preset of filters alone is the options' base; a preset with a
    /// size is refused there (the frames give theirs); under `--presets-only` a body names one.
    @Test func theJSONAPINamesAPreset() async throws {
        try await withServer({
            $0.presets = ["people": try! Preset(text: "people=filters:kinds(person):placement(thirds)"), "thumb": try! Preset(text: Self.thumb)]
            $0.presetsOnly = true
        }) { client in
            func plan(_ options: [String: Any]) async throws -> (HTTPResponse.Status, [String: Any]?) {
                let request: [String: Any] = ["source": ["path": "astronaut.png"], "frames": [["width": 300, "height": 200]], "options": options]
                let data = try JSONSerialization.data(withJSONObject: request)
                return try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(bytes: data)) { ($0.status, $0.json) }
            }
            let (status, json) = try await plan(["preset": "people"])
            let frame = try #require((json?["frames"] as? [[String: Any]])?.first)
            #expect(status == .ok && frame["strategy"] as? String == "people", "\(String(describing: json))")
            #expect(frame["placement"] is String, "the plan says how the preset's placement went")
            #expect(try await plan(["preset": "thumb"]).0 == .badRequest)
            #expect(try await plan(["preset": "nope"]).0 == .badRequest)
            let (refused, answer) = try await plan(["kinds": "face"])
            #expect(refused == .forbidden && answer?["code"] as? String == "request.preset_required")
        }
    }

    /// `--presets-only`: any URL without a preset, or with a filter beside it the operator did not
    /// allow, is a JSON 403; a preset's URL (with `expire`) is served.
    @Test func presetsOnlyRefusesEveryOtherURL() async throws {
        try await withServer({
            $0.presets = ["thumb": try! Preset(text: Self.thumb)]
            $0.presetsOnly = true
        }) { client in
            let later = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
            _ = try await FilterRouteTests.get(client, "/unsafe/filters:preset(thumb)/astronaut.png")
            _ = try await FilterRouteTests.get(client, "/unsafe/filters:preset(thumb):expire(\(later))/astronaut.png")
            for uri in [
                "/unsafe/200x100/astronaut.png", "/unsafe/astronaut.png", "/unsafe/filters:preset(thumb):blur(5)/astronaut.png",
                "/unsafe/meta/200x100/astronaut.png",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                    #expect(response.json?["code"] as? String == "request.preset_required", "\(uri)")
                    #expect((response.json?["message"] as? String ?? "").contains("preset"))
                }
            }
        }
    }
}
