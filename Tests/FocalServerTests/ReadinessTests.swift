import FocalTestSupport
import Foundation
import GRDB
import HTTPTypes
import Testing

@testable import FocalServer

/// `/readyz` is not 200 while a kind of request would fail: a model file of any accuracy
/// missing, or the replica's own saved-crops database broken.
@Suite struct ReadinessTests {
    /// A model folder with every file but `missing`, each a link to the checkout's.
    static func modelsWithout(_ missing: String) throws -> Scratch {
        let folder = try Scratch()
        for name in try FileManager.default.contentsOfDirectory(atPath: Checkout.models) where name != missing {
            try FileManager.default.createSymbolicLink(atPath: folder.file(name), withDestinationPath: Checkout.models + "/" + name)
        }
        return folder
    }

    @Test func readyWithEverything() async throws {
        try await withServer { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.json?["status"] as? String == "ready")
            }
        }
    }

    /// `accuracy(accurate)` loads its own model files on first use: one missing makes the
    /// replica not ready, named in the answer, though the fast models load.
    @Test func anAccurateModelMissingIsNotReady() async throws {
        let missing = "yunet-2023mar-1280x960.onnx"
        let folder = try Self.modelsWithout(missing)
        defer { folder.remove() }
        try await withServer({ $0.pipeline.modelsPath = folder.url.path }) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.json?["code"] as? String == "server.not_ready")
                #expect((response.json?["message"] as? String)?.contains(missing) == true, "\(String(describing: response.json))")
                #expect((response.json?["message"] as? String)?.contains(folder.url.path) == false, "no server path is shown")
            }
            // The fast path works all the same.
            try await client.execute(uri: "/unsafe/100x100/smart/astronaut.png", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// The saved-crops table gone from the replica's SQLite file: not ready (every smart crop
    /// would go without saved crops), and smart crops say they are degraded.
    @Test func aBrokenSQLiteSchemaIsNotReady() async throws {
        let data = try Scratch()
        defer { data.remove() }
        try await withServer({ $0.dataDirectory = data.url.path }) { client in
            try await client.execute(uri: "/readyz", method: .get) { #expect($0.status == .ok) }
            let database = try DatabaseQueue(path: data.file("overrides.sqlite"))
            try await database.write { try $0.execute(sql: "DROP TABLE override") }
            // The background check runs every second; on a loaded machine it may come late, so
            // the probe is asked again until it has run (at most 30 s).
            var answer: (status: HTTPResponse.Status, json: [String: Any]?) = (.ok, nil)
            let until = ContinuousClock.now + .seconds(30)
            while answer.status == .ok, ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(250))
                answer = try await client.execute(uri: "/readyz", method: .get) { ($0.status, $0.json) }
            }
            #expect(answer.status == .serviceUnavailable)
            #expect((answer.json?["message"] as? String)?.contains("saved crops") == true, "\(String(describing: answer.json))")
            try await client.execute(uri: "/unsafe/120x100/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.init("X-Focal-Degraded")!] == "saved-crops")
            }
        }
    }
}
