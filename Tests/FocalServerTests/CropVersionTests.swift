import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Image URLs that carry their version (`?v=`) are cached for a year; a saved crop, its deletion
/// or a changed photo makes a new version, so the old URL goes back to revalidation at once.
@Suite struct CropVersionTests {
    static let astronaut = OverrideRouteTests.astronaut
    static let revalidate = "public, max-age=0, must-revalidate, s-maxage=86400"

    static func version(_ response: TestResponse) -> String? { OverrideRouteTests.plan(response)?["version"] as? String }

    static func planVersions(_ client: any TestClientProtocol) async throws -> [String?] {
        try await client.execute(
            uri: "/v1/plan", method: .post,
            body: ByteBuffer(string: #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"16:9"},{"width":100,"height":100}]}"#)
        ) { response in ((response.json?["frames"] as? [[String: Any]]) ?? []).map { $0["version"] as? String } }
    }

    @Test func aVersionedURLIsImmutableUntilASavedCropChangesIt() async throws {
        try await withServer { client in
            let uri = "/unsafe/320x180/smart/astronaut.png", base = "/v1/images/\(Self.astronaut)/overrides/16x9"
            let first = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.headers[.cacheControl] == Self.revalidate, "unversioned: revalidated as before")
                return Self.version(response)
            }
            let automatic = try #require(first)
            #expect(automatic.count == 16 && automatic.allSatisfy(\.isHexDigit), "a digest of the content and the configuration: \(automatic)")
            #expect(try await Self.planVersions(client) == [automatic, automatic], "/v1/plan gives each frame's version")
            try await client.execute(uri: uri + "?v=" + automatic, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, s-maxage=86400, immutable")
            }
            for wrong in ["0000000000000000", automatic + ".1", ""] {
                try await client.execute(uri: uri + "?v=" + wrong, method: .get) {
                    #expect($0.headers[.cacheControl] == Self.revalidate, "another version: \(wrong)")
                }
            }
            // A saved crop for 16:9: a new version; the old one is revalidated again.
            let body = ByteBuffer(string: #"{"x":0,"y":224,"width":512,"height":288}"#)
            try await client.execute(uri: base, method: .put, headers: Self.auth, body: body) { #expect($0.status == .created) }
            let saved = try await client.execute(uri: uri + "?v=" + automatic, method: .get) { response in
                #expect(response.headers[.cacheControl] == Self.revalidate)
                #expect(OverrideRouteTests.plan(response)?["strategy"] as? String == "manual")
                return Self.version(response)
            }
            #expect(saved == automatic + ".1")
            #expect(try await Self.planVersions(client) == [automatic + ".1", automatic], "another aspect keeps its version")
            try await client.execute(uri: uri + "?v=" + automatic + ".1", method: .get) {
                #expect($0.headers[.cacheControl] == "public, max-age=31536000, s-maxage=86400, immutable")
            }
            // Deleted: the automatic crop again, under the automatic version (the same answer as before).
            try await client.execute(uri: base, method: .delete, headers: Self.auth) { #expect($0.status == .noContent) }
            try await client.execute(uri: uri + "?v=" + automatic + ".1", method: .get) {
                #expect($0.headers[.cacheControl] == Self.revalidate)
                #expect(Self.version($0) == automatic)
            }
            // A plain crop depends on the content only: a day as before, a year with its version.
            try await client.execute(uri: "/unsafe/100x100/astronaut.png?v=" + automatic, method: .get) {
                #expect($0.headers[.cacheControl] == "public, max-age=31536000, s-maxage=86400, immutable")
            }
        }
    }

    static let auth = OverrideRouteTests.auth
}
