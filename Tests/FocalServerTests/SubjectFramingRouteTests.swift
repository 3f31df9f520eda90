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

/// The object detector's classes, weights, placement and tight crops through the URL door (the
/// JSON API, the command line and the element read the same option table).
@Suite struct SubjectFramingRouteTests {
    @Test func classesPlacementAndTightCropsThroughURLs() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for name in ["motorcycle_left.png", "grace_hopper.jpg"] {
            try FileManager.default.copyItem(atPath: Checkout.fixture(name), toPath: scratch.file(name))
        }
        try await withServer({ $0.root = scratch.path }) { client in
            // meta/ says what each crop was built around and how it was placed.
            func plan(_ path: String) async throws -> [String: Any] {
                try await client.execute(uri: "/unsafe/meta/" + path, method: .get) { response in
                    #expect(response.status == .ok, "\(path): \(String(decoding: response.data, as: UTF8.self).prefix(300))")
                    let json = try #require(response.json)
                    return (json["thumbor"] as? [String: Any]).flatMap { $0["focal"] as? [String: Any] } ?? json
                }
            }
            let plain = try await plan("300x300/smart/motorcycle_left.png")
            let bike = try await plan("300x300/smart/filters:kinds(motorbike)/motorcycle_left.png")
            #expect("\(plain)".contains("faces") && "\(bike)".contains("objects"), "\(bike)")
            let (tight, _) = try await FilterRouteTests.get(client, "/unsafe/300x0/smart/filters:tight(width)/grace_hopper.jpg")
            let size = try FilterRouteTests.decode(tight).size
            #expect(size.width == 300 && size.height > 352, "the face's box is taller than the photo's 300x352: \(size)")
            // Another spelling is redirected to the one the table prints.
            try await client.execute(uri: "/unsafe/300x0/smart/filters:tight()/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/unsafe/300x0/smart/filters:tight(width)/grace_hopper.jpg")
            }
            _ = try await FilterRouteTests.get(client, "/unsafe/200x200/smart/filters:placement(thirds):kinds(face:2+person:1)/grace_hopper.jpg")
            try await client.execute(uri: "/unsafe/200x200/smart/filters:kinds(spaceship)/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String ?? "").contains("class of the object detector"))
            }
        }
    }
}
