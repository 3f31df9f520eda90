import Focal
import FocalTestSupport
import Foundation
import Testing

// The compiled-model cache on real OpenVINO: blobs written owner-only, a corrupt blob compiled
// again, a cache folder that is a link refused. Each test has its own folder, so its detectors
// compile their own nets (nets are shared per model, settings and cache folder).

/// A fresh folder under the temporary directory, removed by the caller.
private func temporaryFolder(_ label: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("focal-\(label)-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The blob files under `folder`, with their contents.
private func blobs(in folder: String) -> [String: Data] {
    var found: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: folder) else { return found }
    for case let path as String in walker where path.hasSuffix(".blob") {
        found[path] = FileManager.default.contents(atPath: folder + "/" + path)
    }
    return found
}

/// The faces found on grace_hopper.jpg by a detector that keeps its compiled model in `cache`.
private func faces(cache: String) async throws -> [Subject] {
    let detector = try FaceDetector(models: models, inference: InferenceSettings(parallel: 1, cacheFolder: cache))
    return try await detector.detect(request(for: "grace_hopper.jpg"))
}

@Suite struct CompiledModelCacheTests {
    @Test("the compiled model is kept in an owner-only folder per OpenVINO version")
    func blobIsWritten() async throws {
        let cache = try temporaryFolder("model-cache")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let found = try await faces(cache: cache)
        #expect(found.count == 1)
        let written = blobs(in: cache)
        #expect(written.count == 1, "one blob for the one model compiled: \(written.keys)")
        let versions = try FileManager.default.contentsOfDirectory(atPath: cache)
        #expect(versions.count == 1 && versions[0].hasPrefix("openvino-"))
        let attributes = try FileManager.default.attributesOfItem(atPath: cache + "/" + versions[0])
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    @Test("a corrupt blob is compiled again: the same faces, and the blob is rewritten")
    func corruptBlobIsRebuilt() async throws {
        let cache = try temporaryFolder("model-cache-corrupt")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let first = try await faces(cache: cache)
        let written = blobs(in: cache)
        try #require(written.count == 1)
        let garbage = Data(repeating: 0xA5, count: 4096)
        for name in written.keys { try garbage.write(to: URL(fileURLWithPath: cache + "/" + name)) }
        // The same folder under another spelling: a new runtime (nets are shared per folder
        // string), so the model is loaded again, and OpenVINO meets the corrupt blob.
        let again = try await faces(cache: cache + "/.")
        #expect(again.map(\.box) == first.map(\.box))
        #expect(again.map(\.confidence) == first.map(\.confidence))
        let rewritten = blobs(in: cache)
        #expect(rewritten.count == 1)
        #expect(rewritten.values.allSatisfy { $0 != garbage && $0.count > garbage.count })
    }

    @Test("a version subfolder that is a link is not used, and detection still works without it")
    func linkIsRefused() async throws {
        // Learn the version subfolder's name from a plain cache.
        let plain = try temporaryFolder("model-cache-plain")
        defer { try? FileManager.default.removeItem(atPath: plain) }
        _ = try await faces(cache: plain)
        let version = try #require(try FileManager.default.contentsOfDirectory(atPath: plain).first)

        let target = try temporaryFolder("model-cache-target")
        defer { try? FileManager.default.removeItem(atPath: target) }
        let cache = try temporaryFolder("model-cache-linked")
        defer { try? FileManager.default.removeItem(atPath: cache) }
        try FileManager.default.createSymbolicLink(atPath: cache + "/" + version, withDestinationPath: target)
        let found = try await faces(cache: cache)
        #expect(found.count == 1)
        #expect(blobs(in: target).isEmpty, "nothing may be written through the link")
    }
}
