import Focal
import FocalFetch
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// An overlay is identified once, not read on every cached hit: a URL watermark is fetched for
/// the first render only and a cached crop is still served with its host down; a file overlay
/// is read again only when it changes (and then its crop changes).
@Suite(.serialized) struct OverlayIdentityTests {
    @Test func cachedHitsWithAURLWatermarkFetchNothing() async throws {
        try await withServer({ $0.pipeline.network.addressPolicy = AddressPolicy(allowedNetworks: [IPNetwork(IPAddress(127, 0, 0, 1))]) }) { client in
            var uri = "", first = Data()
            try await withLoopbackServer { upstream in
                let mark = upstream.url("/image/grace_hopper.jpg").absoluteString
                let encoded = mark.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? mark
                uri = "/unsafe/200x150/filters:watermark(\(encoded),0,0,30):format(png)/coffee.png"
                first = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(String(decoding: response.data.prefix(300), as: UTF8.self))")
                    return response.data
                }
                for _ in 0..<20 {
                    try await client.execute(uri: uri, method: .get) { response in
                        #expect(response.status == .ok)
                        #expect(response.data == first)
                    }
                }
                #expect(upstream.hits("/image/grace_hopper.jpg") == 1, "the watermark was fetched once for 21 answers")
            }
            // The watermark's host is gone: the cached crop is served all the same.
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok, "\(String(decoding: response.data.prefix(300), as: UTF8.self))")
                #expect(response.data == first)
            }
        }
    }

    @Test func aFileOverlayIsReadAgainOnlyWhenItChanges() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try FileManager.default.copyItem(atPath: Checkout.fixture("coffee.png"), toPath: scratch.file("coffee.png"))
        try FileManager.default.copyItem(atPath: Checkout.fixture("grace_hopper.jpg"), toPath: scratch.file("mark.jpg"))
        try await withServer({ $0.root = scratch.path }) { client in
            let uri = "/unsafe/200x150/filters:watermark(mark.jpg,0,0,30):format(png)/coffee.png"
            let first = try await client.execute(uri: uri, method: .get) { $0.data }
            let again = try await client.execute(uri: uri, method: .get) { $0.data }
            #expect(again == first)
            // Another mark at the same path: a new identity, a new crop.
            try FileManager.default.removeItem(atPath: scratch.file("mark.jpg"))
            try FileManager.default.copyItem(atPath: Checkout.fixture("rocket.jpg"), toPath: scratch.file("mark.jpg"))
            let changed = try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                return response.data
            }
            #expect(changed != first, "the changed watermark shows")
        }
    }
}
