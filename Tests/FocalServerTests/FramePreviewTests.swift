import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// `POST /v1/plan` with `"previews": true`: each frame's crop as a tiny inline WebP, the same
/// picture as the image URL's crop at that size.
@Suite struct FramePreviewTests {
    @Test func eachFrameGetsItsCropAsATinyInlineImage() async throws {
        try await withServer { client in
            let body = #"{"source":{"path":"chelsea.png"},"frames":[{"aspect":"16:9"},{"aspect":"1:1"},{"aspect":"9:16"}],"previews":true}"#
            let frames = try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .ok)
                return (response.json?["frames"] as? [[String: Any]]) ?? []
            }
            #expect(frames.count == 3)
            let prefix = "data:image/webp;base64,"
            for (frame, (uri, expected)) in zip(frames, [
                ("/unsafe/16x9/smart/filters:format(webp)/chelsea.png", PixelSize(width: 16, height: 9)),
                ("/unsafe/16x16/smart/filters:format(webp)/chelsea.png", PixelSize(width: 16, height: 16)),
                ("/unsafe/9x16/smart/filters:format(webp)/chelsea.png", PixelSize(width: 9, height: 16)),
            ]) {
                let preview = try #require(frame["preview"] as? String)
                #expect(preview.hasPrefix(prefix))
                #expect(preview.utf8.count < 600, "a few hundred bytes: \(preview.utf8.count)")
                let data = try #require(Data(base64Encoded: String(preview.dropFirst(prefix.count))))
                let image = try SourceImage.open(data: data, name: "preview")
                #expect(image.size == expected)
                // The same picture as the frame's own crop at that size (WebP at low quality).
                let crop = try await client.execute(uri: uri, method: .get) { $0.data }
                let difference = try SavedCropAgreementTests.meanDifference(data, crop)
                #expect(difference < 12, "\(uri): mean difference \(difference)")
            }
            // At most 8 distinct crops are rendered; frames that share a crop share its preview.
            let many = (1...10).map { #"{"width":\#(100 + $0 * 7),"height":100}"# } + [#"{"width":107,"height":100}"#]
            let bounded = #"{"source":{"path":"chelsea.png"},"frames":[\#(many.joined(separator: ","))],"previews":true}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: bounded)) { response in
                let previews = ((response.json?["frames"] as? [[String: Any]]) ?? []).map { $0["preview"] as? String }
                #expect(previews.count == 11)
                #expect(previews.prefix(8).allSatisfy { $0 != nil } && previews[8] == nil && previews[9] == nil, "\(previews.map { $0 != nil })")
                #expect(previews[10] != nil && previews[10] == previews[0], "the same crop as the first frame: its preview")
            }
            // Without asking, no previews (each costs a decode).
            let plain = #"{"source":{"path":"chelsea.png"},"frames":[{"aspect":"16:9"}]}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: plain)) { response in
                #expect(((response.json?["frames"] as? [[String: Any]])?.first)?["preview"] == nil)
            }
        }
    }
}
