import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Saved crops through the API: who may write, what is checked, and that every smart request,
/// plan and meta at that aspect uses the saved crop, with no cache serving the old one.
@Suite struct OverrideRouteTests {
    static let astronaut = "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"
    static let auth: HTTPFields = [.authorization: "Bearer \(TestSecrets.token)"]

    static func plan(_ response: TestResponse) -> [String: Any]? {
        guard let text = response.headers[HTTPField.Name("X-Focal-Plan")!] else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    @Test func savedCropWinsEverywhereAndResetRestores() async throws {
        try await withServer { client in
            let uri = "/unsafe/320x180/smart/astronaut.png", base = "/v1/images/\(Self.astronaut)/overrides/16x9"
            let automatic = try await client.execute(uri: uri, method: .get) { response in
                #expect(Self.plan(response)?["strategy"] as? String == "faces")
                return response.data
            }
            let body = ByteBuffer(string: #"{"x":0,"y":224,"width":512,"height":288}"#)
            try await client.execute(uri: base, method: .put, body: body) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: base, method: .put, headers: Self.auth, body: body) { response in
                #expect(response.status == .created)
                #expect(response.headers[.eTag] == "\"1\"")
                #expect(response.json?["revision"] as? Int == 1)
            }
            // The image, any size of that aspect, meta and plan all use it now.
            for size in ["320x180", "160x90", "1024x576"] {
                try await client.execute(uri: "/unsafe/\(size)/smart/astronaut.png", method: .get) { response in
                    let plan = Self.plan(response)
                    #expect(plan?["strategy"] as? String == "manual", "\(size)")
                    #expect(plan?["crop"] as? [Int] == [0, 224, 512, 288], "\(size)")
                    #expect(plan?["override"] as? Int == 1)
                }
            }
            let manual = try await client.execute(uri: uri, method: .get) { $0.data }
            #expect(manual != automatic)
            try await client.execute(uri: "/unsafe/meta/320x180/smart/astronaut.png", method: .get) { response in
                let focal = response.json?["focal"] as? [String: Any]
                #expect(focal?["strategy"] as? String == "manual")
                #expect((focal?["override"] as? [String: Any])?["revision"] as? Int == 1)
            }
            try await client.execute(
                uri: "/v1/plan", method: .post,
                body: ByteBuffer(string: #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"16:9"},{"width":100,"height":100}]}"#)
            ) { response in
                let frames = response.json?["frames"] as? [[String: Any]]
                #expect(frames?.first?["strategy"] as? String == "manual")
                #expect(frames?.last?["strategy"] as? String == "faces", "another aspect stays automatic")
            }
            // Without smart, a centre crop stays a centre crop.
            try await client.execute(uri: "/unsafe/320x180/astronaut.png", method: .get) { #expect(Self.plan($0)?["strategy"] as? String == "center") }
            // A second save: stale If-Match refused, the right one accepted.
            let moved = ByteBuffer(string: #"{"x":0,"y":100,"width":512,"height":288}"#)
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifMatch: "\"7\""], body: moved) { response in
                #expect(response.status == .preconditionFailed)
                #expect(response.json?["code"] as? String == "request.precondition_failed")
            }
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifMatch: "\"1\""], body: moved) { response in
                #expect(response.status == .ok)
                #expect(response.json?["revision"] as? Int == 2)
            }
            try await client.execute(uri: uri, method: .get) { #expect(Self.plan($0)?["crop"] as? [Int] == [0, 100, 512, 288]) }
            // Reset: automatic again, not an old cached manual crop.
            try await client.execute(uri: base, method: .delete, headers: Self.auth) { #expect($0.status == .noContent) }
            try await client.execute(uri: base, method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: uri, method: .get) { response in
                #expect(Self.plan(response)?["strategy"] as? String == "faces")
                #expect(response.data == automatic)
            }
        }
    }

    /// A saves (revision 1), B deletes, C saves anew: A's `If-Match: "1"` is refused, not taken
    /// for C's crop, and results never show an old crop under a reused revision.
    @Test func anIfMatchFromBeforeADeleteIsRefused() async throws {
        try await withServer { client in
            let base = "/v1/images/\(Self.astronaut)/overrides/16x9", uri = "/unsafe/320x180/smart/astronaut.png"
            let a = ByteBuffer(string: #"{"x":0,"y":224,"width":512,"height":288}"#)
            let c = ByteBuffer(string: #"{"x":0,"y":0,"width":512,"height":288}"#)
            try await client.execute(uri: base, method: .put, headers: Self.auth, body: a) { #expect($0.headers[.eTag] == "\"1\"") }
            try await client.execute(uri: uri, method: .get) { #expect(Self.plan($0)?["crop"] as? [Int] == [0, 224, 512, 288]) }
            try await client.execute(uri: base, method: .delete, headers: Self.auth) { #expect($0.status == .noContent) }
            // If-None-Match: * (create only) takes the place of the deleted crop.
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifNoneMatch: "*"], body: c) { response in
                #expect(response.status == .created)
                #expect(response.headers[.eTag] == "\"3\"")
            }
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifMatch: "\"1\""], body: a) { response in
                #expect(response.status == .preconditionFailed)
                #expect(response.json?["code"] as? String == "request.precondition_failed")
            }
            try await client.execute(uri: base, method: .delete, headers: Self.auth + [.ifMatch: "\"1\""]) {
                #expect($0.status == .preconditionFailed)
            }
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifNoneMatch: "*"], body: a) {
                #expect($0.status == .preconditionFailed)
            }
            try await client.execute(uri: base, method: .put, headers: Self.auth + [.ifNoneMatch: "\"3\""], body: a) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: base, method: .get) { response in
                #expect(response.headers[.eTag] == "\"3\"")
                #expect((response.json?["crop"] as? [String: Any])?["y"] as? Int == 0)
            }
            try await client.execute(uri: uri, method: .get) { response in
                #expect(Self.plan(response)?["crop"] as? [Int] == [0, 0, 512, 288])
                #expect(Self.plan(response)?["override"] as? Int == 3)
            }
        }
    }

    @Test func aSmallSavedCropIsScaledUpToTheOutputWithinTheUpscaleLimit() async throws {
        try await withServer { client in
            let base = "/v1/images/\(Self.astronaut)/overrides/16x9"
            let body = ByteBuffer(string: #"{"x":16,"y":32,"width":128,"height":72}"#)
            try await client.execute(uri: base, method: .put, headers: Self.auth, body: body) { #expect($0.status == .created) }
            // 640x360 is 5 times the crop: the saved crop itself, enlarged.
            try await client.execute(uri: "/unsafe/640x360/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Self.plan(response)?["strategy"] as? String == "manual")
                #expect(Self.plan(response)?["crop"] as? [Int] == [16, 32, 128, 72])
            }
            // 1280x720 would be 10 times (over maxUpscale, 8): the smallest crop holding it at that size.
            try await client.execute(uri: "/unsafe/1280x720/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                let crop = Self.plan(response)?["crop"] as? [Int] ?? []
                #expect(Self.plan(response)?["strategy"] as? String == "manual")
                #expect(crop.count == 4 && crop[0] <= 16 && crop[1] <= 32 && crop[0] + crop[2] >= 144 && crop[1] + crop[3] >= 104)
                #expect(crop.count == 4 && crop[2] * 8 >= 1280, "within the upscale limit: \(crop)")
            }
        }
    }

    @Test(arguments: [
        (#"{"x":0,"y":0,"width":512,"height":200}"#, "16x9", "request.invalid"),  // not 16:9
        (#"{"x":100,"y":300,"width":512,"height":288}"#, "16x9", "request.invalid"),  // outside the image
        (#"{"x":0,"y":0,"width":0,"height":0}"#, "1x1", "request.invalid"),
        (#"{"x":0,"y":0}"#, "1x1", "request.invalid"),
        (#"{"x":0,"y":0,"width":10,"height":10}"#, "10", "request.invalid"),
    ])
    func badSavesAreRefused(_ body: String, _ aspect: String, _ code: String) async throws {
        try await withServer { client in
            try await client.execute(
                uri: "/v1/images/\(Self.astronaut)/overrides/\(aspect)", method: .put, headers: Self.auth, body: ByteBuffer(string: body)
            ) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["code"] as? String == code, "\(String(decoding: response.data, as: UTF8.self))")
            }
        }
    }

    /// An image holds at most 64 saved crops: each smart request of it reads them all (3,000 once
    /// made every request cost 17.5 ms). Another aspect is refused; one already saved may change.
    @Test func savedAspectsAreBounded() async throws {
        try await withServer { client in
            for k in 1...64 {
                let height = Int((512.0 / Double(k)).rounded())
                try await client.execute(
                    uri: "/v1/images/\(Self.astronaut)/overrides/\(k)x1", method: .put, headers: Self.auth,
                    body: ByteBuffer(string: #"{"x":0,"y":0,"width":512,"height":\#(height)}"#)
                ) { #expect($0.status == .created, "\(k)x1") }
            }
            try await client.execute(
                uri: "/v1/images/\(Self.astronaut)/overrides/1x2", method: .put, headers: Self.auth,
                body: ByteBuffer(string: #"{"x":0,"y":0,"width":256,"height":512}"#)
            ) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains("at most 64 saved crops") == true)
            }
            try await client.execute(
                uri: "/v1/images/\(Self.astronaut)/overrides/2x1", method: .put, headers: Self.auth,
                body: ByteBuffer(string: #"{"x":0,"y":100,"width":512,"height":256}"#)
            ) { #expect($0.status == .ok, "an aspect already saved may still change") }
        }
    }

    @Test func unknownImagesHaveNoOverrides() async throws {
        try await withServer { client in
            let unknown = String(repeating: "0", count: 64)
            try await client.execute(
                uri: "/v1/images/\(unknown)/overrides/1x1", method: .put, headers: Self.auth,
                body: ByteBuffer(string: #"{"x":0,"y":0,"width":10,"height":10}"#)
            ) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/images/nothex/overrides", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// A saved crop survives a restart of the service (same data folder).
    @Test func savedCropsSurviveARestart() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let configure: @Sendable (inout ServerConfiguration) -> Void = { $0.dataDirectory = scratch.path }
        try await withServer(configure) { client in
            try await client.execute(
                uri: "/v1/images/\(Self.astronaut)/overrides/1x1", method: .put, headers: Self.auth,
                body: ByteBuffer(string: #"{"x":100,"y":0,"width":300,"height":300}"#)
            ) { #expect($0.status == .created) }
        }
        try await withServer(configure) { client in
            try await client.execute(uri: "/unsafe/150x150/smart/astronaut.png", method: .get) { response in
                #expect(Self.plan(response)?["strategy"] as? String == "manual")
                #expect(Self.plan(response)?["crop"] as? [Int] == [100, 0, 300, 300])
            }
        }
    }
}

extension HTTPFields {
    static func + (a: HTTPFields, b: HTTPFields) -> HTTPFields {
        var merged = a
        for field in b { merged.append(field) }
        return merged
    }
}
