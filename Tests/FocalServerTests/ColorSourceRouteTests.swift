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

/// imagor's `color:` source through the URL: a blank image of one colour at the size the URL asks
/// for, with the filters applying to it as to a photo, and clear refusals.
@Suite struct ColorSourceRouteTests {
    @Test("color:ff6600, color:red and color:transparent make blanks of the URL's size; filters apply")
    func blanks() async throws {
        try await withServer { client in
            let (orange, _) = try await FilterRouteTests.get(client, "/unsafe/200x100/color:ff6600")
            let image = try FilterRouteTests.pixels(orange)
            #expect(image.size == PixelSize(width: 200, height: 100))
            let bytes: [UInt8] = image.bytes
            var colours = Set<[UInt8]>()
            for i in stride(from: 0, to: bytes.count, by: 3) { colours.insert(Array(bytes[i..<(i + 3)])) }
            #expect(colours == [[255, 102, 0]], "every pixel orange")

            // One side given: the other is the same.
            let (square, _) = try await FilterRouteTests.get(client, "/unsafe/0x64/filters:format(png)/color:red")
            #expect(try FilterRouteTests.decode(square).size == PixelSize(width: 64, height: 64))

            let (clear, _) = try await FilterRouteTests.get(client, "/unsafe/40x30/filters:format(png)/color:transparent")
            let rgba = try FilterRouteTests.decode(clear).decode(width: 40, height: 30).rgbaPixels()
            #expect(rgba.count == 40 * 30 * 4)
            #expect(stride(from: 3, to: rgba.count, by: 4).allSatisfy { rgba[$0] == 0 }, "transparent everywhere")

            let (grey, _) = try await FilterRouteTests.get(client, "/unsafe/20x20/filters:grayscale():format(png)/color:red")
            let g = try FilterRouteTests.pixels(grey)
            #expect(g.bytes[0] == g.bytes[1] && g.bytes[1] == g.bytes[2], "grayscale() applied to the blank")
        }
    }

    @Test("POST /v1/plan plans a color: source at its largest sized frame, with previews; without a sized frame it is a 400")
    func plan() async throws {
        try await withServer { client in
            let request: [String: Any] = [
                "source": ["url": "color:ff6600"], "frames": [["width": 320, "height": 180], ["aspect": "1:1"]], "previews": true,
            ]
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: request))) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
                let json = try #require(response.json)
                let image = try #require(json["image"] as? [String: Any])
                #expect(image["width"] as? Int == 320 && image["height"] as? Int == 180)
                let frames = try #require(json["frames"] as? [[String: Any]])
                #expect(frames.count == 2)
                #expect(frames.allSatisfy { ($0["preview"] as? String)?.hasPrefix("data:image/") == true })
            }
            let aspectOnly: [String: Any] = ["source": ["url": "color:red"], "frames": [["aspect": "16:9"]]]
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: aspectOnly))) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("a sized frame in a plan"))
            }
        }
    }

    @Test("a color: source without a size, with a bad colour, too large or as an overlay is a 400 naming why", arguments: [
        ("/unsafe/color:red", "WxH in a URL"),
        ("/unsafe/200x100/color:glitter", "is not a colour"),
        ("/unsafe/99999x100/color:red", "pixels a side"),
        ("/unsafe/200x100/filters:watermark(color:red,0,0,0)/grace_hopper.jpg", "only an image URL's own image"),
    ])
    func refusals(uri: String, says: String) async throws {
        try await withServer { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .badRequest, "\(uri)")
                let body = String(buffer: response.body)
                #expect(body.contains("\"code\":\"request.invalid\""), "\(body)")
                #expect(body.contains(says), "\(body)")
            }
        }
    }
}
