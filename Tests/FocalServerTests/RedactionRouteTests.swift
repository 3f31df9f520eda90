import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `filters:redact(…)` through the URL: the faces Focal finds are gone from the output (its own
/// detector, at its most thorough, finds none there), and the pixels away from them are the
/// unredacted crop's.
@Suite struct RedactionRouteTests {
    static let pipeline = FocalPipeline(configuration: FocalConfiguration(modelsPath: Checkout.models))

    /// The faces the thorough detection finds in `data`.
    static func faces(in data: Data) async throws -> [Subject] {
        try await pipeline.analyze(.data(data, name: "output"), accuracy: .accurate, scope: .everything).subjects.filter { $0.kind == .face }
    }

    /// `--redact pixelate`: no image URL (nor a preview) gets a face out, whatever it asks, and an
    /// original needs the token.
    @Test func aForcedRedactionLeavesNoRouteWithAFace() async throws {
        let forced = try #require(try ServerConfiguration(flags: ["redact": ["pixelate"]], environment: [:]).redact)
        #expect(forced.text == "pixelate")
        #expect(try ServerConfiguration(environment: [:]).redact == nil)
        #expect(throws: (any Error).self) { try ServerConfiguration(flags: ["redact": ["glitter"]], environment: [:]) }
        try await withServer({ $0.redact = forced }) { client in
            for uri in [
                "/unsafe/320x320/smart/filters:format(png)/grace_hopper.jpg", "/unsafe/320x320/filters:format(png)/grace_hopper.jpg",
                "/unsafe/320x320/smart/filters:redact(000000,person):format(png)/grace_hopper.jpg", "/unsafe/fit-in/400x400/filters:format(png)/astronaut.png",
            ] {
                let data = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    return response.data
                }
                #expect(try await Self.faces(in: data).isEmpty, "\(uri): a face is found")
            }
            let id = try await client.execute(uri: "/v1/photos", method: .get) {
                (($0.json?["photos"] as? [[String: Any]])?.first { $0["path"] as? String == "grace_hopper.jpg" })?["id"] as? String
            }
            try await client.execute(uri: "/v1/images/\(try #require(id))", method: .get) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/v1/images/\(try #require(id))", method: .get, headers: [.authorization: "Bearer \(TestSecrets.token)"]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test func pixelatedAndBlurredFacesAreFoundNoMore() async throws {
        try await withServer { client in
            for photo in ["grace_hopper.jpg", "astronaut.png"] {
                let plain = try await client.execute(uri: "/unsafe/320x320/smart/filters:format(png)/\(photo)", method: .get) { $0.data }
                let before = try await Self.faces(in: plain)
                #expect(!before.isEmpty, "\(photo): a face to hide")
                for style in ["pixelate", "blur", "000000"] {
                    for filter in ["redact", "redact_oval"] {
                        let uri = "/unsafe/320x320/smart/filters:\(filter)(\(style)):format(png)/\(photo)"
                        let hidden = try await client.execute(uri: uri, method: .get) { response in
                            #expect(response.status == .ok, "\(uri)")
                            return response.data
                        }
                        #expect(try await Self.faces(in: hidden).isEmpty, "\(uri): a face is still found")
                        // Away from every face (grown by twice its margin), nothing changed.
                        let a = try SourceImage.open(data: plain, name: "plain").render(crop: PixelRect(x: 0, y: 0, width: 320, height: 320), to: PixelSize(width: 320, height: 320)).pixels()
                        let b = try SourceImage.open(data: hidden, name: "hidden").render(crop: PixelRect(x: 0, y: 0, width: 320, height: 320), to: PixelSize(width: 320, height: 320)).pixels()
                        var same = 0, away = 0
                        for y in 0..<320 {
                            for x in 0..<320 where !before.contains(where: { face in
                                let m = 2 * Redaction.margin(forSide: max(face.box.width, face.box.height))
                                return Double(x) >= face.box.x - face.box.width * m && Double(x) <= face.box.x + face.box.width * (1 + m)
                                    && Double(y) >= face.box.y - face.box.height * m && Double(y) <= face.box.y + face.box.height * (1 + m)
                            }) {
                                away += 1
                                let i = 3 * (y * 320 + x)
                                if a.bytes[i] == b.bytes[i] && a.bytes[i + 1] == b.bytes[i + 1] && a.bytes[i + 2] == b.bytes[i + 2] { same += 1 }
                            }
                        }
                        #expect(away > 10_000 && same == away, "\(uri): \(away - same) of \(away) pixels away from the faces changed")
                    }
                }
            }
            // Refused with a message naming the filter.
            try await client.execute(uri: "/unsafe/320x320/filters:redact(glitter)/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains("redact") == true)
            }
            // A redacted crop is another result than the plain one (its own key and ETag).
            let tags = try await [
                client.execute(uri: "/unsafe/200x200/smart/grace_hopper.jpg", method: .get) { $0.headers[.eTag] },
                client.execute(uri: "/unsafe/200x200/smart/filters:redact(blur)/grace_hopper.jpg", method: .get) { $0.headers[.eTag] },
            ]
            #expect(tags[0] != nil && tags[0] != tags[1])
        }
    }
}
