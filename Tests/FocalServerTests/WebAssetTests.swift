import CompressNIO
import Crypto
@testable import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The web files as a page on another site loads them: gzipped when the client takes gzip, under
/// a versioned name cached for good with its Subresource Integrity in `/v1/config`.
@Suite struct WebAssetTests {
    /// The bytes a response carries, gunzipped when it says it is gzip.
    static func decoded(_ response: TestResponse) throws -> Data {
        guard response.headers[.contentEncoding] == "gzip" else { return Data(buffer: response.body) }
        var body = response.body
        let plain = try body.decompress(with: .gzip())
        return Data(buffer: plain)
    }

    @Test("text files go out gzipped to clients that take gzip, the same bytes once decoded, with their own tag")
    func gzipWhenAccepted() async throws {
        try await withServer { client in
            var plain = Data(), plainTag = ""
            try await client.execute(uri: "/focal-img.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == nil, "no Accept-Encoding: plain")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(response.headers[.cacheControl] == "no-cache")
                plain = Data(buffer: response.body)
                plainTag = response.headers[.eTag] ?? ""
            }
            for accept in ["gzip", "br, gzip;q=0.5", "GZIP", "x-gzip"] {
                try await client.execute(uri: "/focal-img.js", method: .get, headers: [.acceptEncoding: accept]) { response in
                    #expect(response.headers[.contentEncoding] == "gzip", "\(accept)")
                    #expect(response.body.readableBytes * 2 < plain.count, "gzip at least halves the script")
                    #expect((try? Self.decoded(response)) == plain)
                    #expect(response.headers[.eTag] != plainTag, "each encoding has its own tag")
                    #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                }
            }
            for accept in ["gzip;q=0", "br", "identity"] {
                try await client.execute(uri: "/focal-img.js", method: .get, headers: [.acceptEncoding: accept]) { response in
                    #expect(response.headers[.contentEncoding] == nil, "\(accept)")
                    #expect(Data(buffer: response.body) == plain)
                }
            }
        }
    }

    @Test("/v1/config names the element's versioned path and integrity; that path is immutable and matches it")
    func versionedElementWithIntegrity() async throws {
        try await withServer { client in
            var script = "", integrity = ""
            try await client.execute(uri: "/v1/config", method: .get) { response in
                let element = response.json?["element"] as? [String: Any]
                script = element?["script"] as? String ?? ""
                integrity = element?["integrity"] as? String ?? ""
            }
            #expect(script.range(of: #"^/focal-img\.[0-9a-f]{12}\.js$"#, options: .regularExpression) != nil, "\(script)")
            #expect(integrity.hasPrefix("sha384-"))
            var tag = ""
            try await client.execute(uri: script, method: .get, headers: [.acceptEncoding: "gzip"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.accessControlAllowOrigin] == "*", "a module script from another origin needs CORS")
                let bytes = (try? Self.decoded(response)) ?? Data()
                #expect("sha384-" + Data(SHA384.hash(data: bytes)).base64EncodedString() == integrity)
                tag = response.headers[.eTag] ?? ""
            }
            try await client.execute(uri: script, method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: tag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            try await client.execute(uri: "/focal-img.000000000000.js", method: .get) { response in
                #expect((400..<500).contains(response.status.code), "another version is not this server's: \(response.status)")
            }
        }
    }
}
