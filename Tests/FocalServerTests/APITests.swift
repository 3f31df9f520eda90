import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The JSON API: plans, detection, uploads, originals, photos, health, readiness, metrics.
@Suite struct APITests {
    func body(_ object: Any) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    @Test func planAnswersEveryFrameFromOneAnalysis() async throws {
        try await withServer { client in
            let request: [String: Any] = [
                "source": ["path": "astronaut.png"],
                "frames": [["width": 400, "height": 400], ["aspect": "16:9"], ["aspect": "9x16"]],
            ]
            try await client.execute(uri: "/v1/plan", method: .post, body: try body(request)) { response in
                #expect(response.status == .ok)
                let json = try #require(response.json)
                let image = try #require(json["image"] as? [String: Any])
                #expect(image["width"] as? Int == 512 && (image["id"] as? String)?.count == 64)
                let frames = try #require(json["frames"] as? [[String: Any]])
                #expect(frames.count == 3)
                #expect(frames.map { $0["target"] as? String } == ["400x400", "16:9", "9:16"])
                #expect(frames.allSatisfy { $0["strategy"] as? String == "faces" })
                #expect((frames[1]["output"] as? [String: Any])?["width"] as? Int == 512)
                #expect((json["subjects"] as? [[String: Any]])?.isEmpty == false)
            }
        }
    }

    @Test func planAndImageAgree() async throws {
        // The crop /v1/plan reports is the crop the image URL renders.
        try await withServer { client in
            let crop = try await client.execute(
                uri: "/v1/plan", method: .post,
                body: try body(["source": ["path": "chelsea.png"], "frames": [["width": 300, "height": 300]]])
            ) { (($0.json?["frames"] as? [[String: Any]])?.first?["crop"]) as? [String: Any] }
            let meta = try await client.execute(uri: "/unsafe/meta/300x300/smart/chelsea.png", method: .get) {
                ($0.json?["focal"] as? [String: Any])?["crop"] as? [String: Any]
            }
            #expect(crop != nil)
            #expect(crop?["x"] as? Double == meta?["x"] as? Double && crop?["width"] as? Double == meta?["width"] as? Double)
        }
    }

    @Test(arguments: [
        ("{}", "request.invalid"), ("not json", "request.invalid"),
        (#"{"source":{"path":"astronaut.png"},"frames":[]}"#, "request.invalid"),
        (#"{"source":{"path":"astronaut.png","id":"x"},"frames":[{"aspect":"1:1"}]}"#, "request.invalid"),
        (#"{"source":{"path":"astronaut.png"},"frames":[{"width":0,"height":10}]}"#, "request.invalid"),
        (#"{"source":{"path":"../Package.swift"},"frames":[{"aspect":"1:1"}]}"#, "input.not_found"),
        (#"{"source":{"path":"astronaut.png"},"frames":[{"width":900000,"height":10}]}"#, "request.invalid"),
        (#"{"source":{"path":"astronaut.png"},"frames":[{"width":9000,"height":10}]}"#, "output.too_large"),
    ])
    func badPlansAreRefused(_ text: String, _ code: String) async throws {
        try await withServer { client in
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: text)) { response in
                #expect(response.json?["code"] as? String == code, "\(text): \(String(decoding: response.data, as: UTF8.self))")
                #expect(response.status.code >= 400 && response.status.code < 500)
            }
        }
    }

    @Test func detectFindsEverything() async throws {
        try await withServer { client in
            try await client.execute(uri: "/v1/detect", method: .post, body: try body(["source": ["path": "chelsea.png"]])) { response in
                let subjects = try #require(response.json?["subjects"] as? [[String: Any]])
                #expect(subjects.contains { $0["kind"] as? String == "cat" })
                #expect(subjects.contains { $0["kind"] as? String == "saliency" })
            }
        }
    }

    @Test func uploadsNeedTheTokenAndComeBack() async throws {
        let photo = try Fixture.graceHopper.data
        try await withServer { client in
            try await client.execute(uri: "/v1/images", method: .post, body: ByteBuffer(bytes: photo)) { response in
                #expect(response.status == .unauthorized)
                #expect(response.json?["code"] as? String == "request.unauthorized")
                #expect(response.headers[.wwwAuthenticate] == "Bearer")
            }
            try await client.execute(
                uri: "/v1/images", method: .post, headers: [.authorization: "Bearer nope"], body: ByteBuffer(bytes: photo)
            ) { #expect($0.status == .unauthorized) }
            let auth: HTTPFields = [.authorization: "Bearer \(TestSecrets.token)"]
            let id = try await client.execute(uri: "/v1/images", method: .post, headers: auth, body: ByteBuffer(bytes: photo)) { response in
                #expect(response.status == .created)
                #expect(response.json?["width"] as? Int == 512 && response.json?["height"] as? Int == 600)
                return response.json?["id"] as? String
            }
            let imageID = try #require(id)
            try await client.execute(uri: "/v1/images/\(imageID)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.data == photo)
                #expect(response.headers[.contentType] == "image/jpeg")
            }
            try await client.execute(uri: "/unsafe/120x120/smart/id:\(imageID)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.imageSize == PixelSize(width: 120, height: 120))
            }
            // Not an image: refused, not stored.
            try await client.execute(uri: "/v1/images", method: .post, headers: auth, body: ByteBuffer(string: "<html></html>")) { response in
                #expect(response.status == .unsupportedMediaType)
                #expect(response.json?["code"] as? String == "input.not_an_image")
            }
        }
    }

    @Test func uploadsOverTheBodyLimitAreRefused() async throws {
        try await withServer({ $0.maxBodyBytes = 10_000 }) { client in
            let photo = try Fixture.graceHopper.data
            try await client.execute(
                uri: "/v1/images", method: .post, headers: [.authorization: "Bearer \(TestSecrets.token)"], body: ByteBuffer(bytes: photo)
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(response.json?["code"] as? String == "request.too_large")
            }
        }
    }

    @Test func writesAreRefusedWithoutAToken() async throws {
        try await withServer({ $0.token = nil }) { client in
            try await client.execute(
                uri: "/v1/images", method: .post, headers: [.authorization: "Bearer anything"], body: ByteBuffer(bytes: try Fixture.coffee.data)
            ) { #expect($0.status == .unauthorized) }
        }
    }

    @Test func photosListTheRoot() async throws {
        try await withServer { client in
            try await client.execute(uri: "/v1/photos", method: .get) { response in
                let photos = try #require(response.json?["photos"] as? [[String: Any]])
                let paths = photos.compactMap { $0["path"] as? String }
                #expect(paths.contains("astronaut.png") && paths.contains("grace_hopper.jpg"))
                #expect(photos.allSatisfy { ($0["id"] as? String)?.count == 64 })
            }
            // Their originals can be fetched by id once listed.
            let id = try await client.execute(uri: "/v1/photos", method: .get) {
                (($0.json?["photos"] as? [[String: Any]])?.first { $0["path"] as? String == "coffee.png" })?["id"] as? String
            }
            let coffee = try Fixture.coffee.data
            try await client.execute(uri: "/v1/images/\(try #require(id))", method: .get) { #expect($0.data == coffee) }
        }
    }

    @Test func healthReadinessAndMetrics() async throws {
        // Live: /metrics answers loopback peers only.
        try await withServer(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/unsafe/100x100/smart/coffee.png", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/unsafe/100x100/smart/coffee.png", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/config", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/favicon.svg", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/unsafe/meta/100x100/smart/coffee.png", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/nowhere", method: .post) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/v1/page-urls", method: .post, body: ByteBuffer(string: #"{"paths":[]}"#)) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/v1/images/\(String(repeating: "0", count: 64))/overrides", method: .get) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(decoding: response.data, as: UTF8.self)
                // Labelled by the path of the route the router matched, with no table to keep.
                let seen: [(String, Int)] = [
                    ("/v1/config", 200), ("/favicon.svg", 200), ("unmatched", 404),
                    ("/v1/page-urls", 401), ("/v1/images/{id}/overrides", 404), ("/healthz", 200), ("/readyz", 200),
                ]
                for (route, status) in seen {
                    #expect(text.contains(#"focal_http_requests_total{route="\#(route)",status="\#(status)"} 1"#), "\(route)")
                }
                #expect(text.contains(#"focal_http_requests_total{route="/**",status="200"} 3"#), "two images and a meta/: \(text)")
                #expect(text.contains(#"focal_build_info{version="\#(FocalVersion.string)"} 1"#))
                #expect(text.contains(#"focal_cache_hits_total{layer="memory"} 1"#))
                #expect(text.contains("focal_http_request_duration_seconds_bucket"))
                #expect(text.contains("focal_detections_total"))
                #expect(text.contains("focal_queue_depth"))
                #expect(text.contains("focal_jobs_in_progress"))
            }
            try await client.execute(uri: "/v1/nothing", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.json?["code"] as? String == "request.not_found")
            }
        }
    }

    @Test func readinessFailsWithoutModels() async throws {
        try await withServer({ $0.pipeline.modelsPath = "/nonexistent" }) { client in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.json?["code"] as? String == "server.not_ready")
            }
            try await client.execute(uri: "/unsafe/100x100/smart/coffee.png", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.json?["code"] as? String == "models.missing")
                #expect((response.json?["message"] as? String)?.contains("/nonexistent") == false, "no path in a public message")
            }
        }
    }
}
