import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What a redaction covers besides the photo's own faces, and how it fails: the overlays an
/// output shows (`watermark()`, `frame()`) are redacted too, transparency is kept, and where the
/// faces cannot be looked for the URL and JSON doors answer an error, never an image.
@Suite(.serialized) struct RedactionOverlayTests {
    /// The faces the thorough detection finds in `data`.
    static func faces(in data: Data) async throws -> [Subject] {
        try await RedactionRouteTests.faces(in: data)
    }

    /// A nine-patch whose picture is grace_hopper.jpg at 160×188, fixed but for its first row and
    /// column (stretchy and clear), with no margins: on a large enough output, the face sits whole
    /// in its lower right corner.
    static func facePatch() throws -> Data {
        let face = try SourceImage.open(path: Checkout.fixture("grace_hopper.jpg")).pixels(width: 160, height: 188)
        let (width, height) = (162, 190)
        var rgba = [UInt8](repeating: 0, count: 4 * width * height)
        for y in 1..<(height - 1) {
            for x in 1..<(width - 1) {
                let from = 3 * ((y - 1) * face.width + (x - 1)), to = 4 * (y * width + x)
                rgba[to] = face.bytes[from]
                rgba[to + 1] = face.bytes[from + 1]
                rgba[to + 2] = face.bytes[from + 2]
                // The stretchy first row and column are clear, so the photo shows beside the face.
                rgba[to + 3] = x == 1 || y == 1 ? 0 : 255
            }
        }
        // Guides: the first picture column on the top row, the first picture row on the left column.
        rgba.replaceSubrange(4 * 1..<4 * 2, with: [0, 0, 0, 255])
        rgba.replaceSubrange(4 * width..<4 * width + 4, with: [0, 0, 0, 255])
        return try RenderedImage(rgba: rgba, size: PixelSize(width: width, height: height)).encode(.png)
    }

    @Test func aForcedRedactionHidesFacesInTheWatermarkTheFrameAndTheImageOverlay() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for name in ["grace_hopper.jpg", "coffee.png"] {
            try FileManager.default.copyItem(atPath: Checkout.fixture(name), toPath: scratch.file(name))
        }
        try Self.facePatch().write(to: URL(fileURLWithPath: scratch.file("face.9.png")))
        let uris = [
            "/unsafe/400x300/filters:watermark(grace_hopper.jpg,0,0,0,60,100):format(png)/coffee.png",
            "/unsafe/400x400/filters:frame(face.9.png):format(png)/coffee.png",
            "/unsafe/400x300/filters:image(grace_hopper.jpg,right,bottom):format(png)/coffee.png",
        ]
        // Without a redaction, the face in each overlay reaches the answer (so the test can fail).
        try await withServer({ $0.root = scratch.path }) { client in
            for uri in uris {
                let data = try await FilterRouteTests.get(client, uri).0
                #expect(try await !Self.faces(in: data).isEmpty, "\(uri): the overlay's face shows without a redaction")
            }
        }
        let forced = try #require(try ServerConfiguration(flags: ["redact": ["pixelate"]], environment: [:]).redact)
        try await withServer({
            $0.root = scratch.path
            $0.redact = forced
        }) { client in
            for uri in uris {
                let data = try await FilterRouteTests.get(client, uri).0
                #expect(try await Self.faces(in: data).isEmpty, "\(uri): a face in the overlay got out")
            }
            // The coffee itself (no face) is unchanged away from the overlay: the frame's clear
            // middle shows the plain crop.
            let plain = try FilterRouteTests.pixels(try await FilterRouteTests.get(client, "/unsafe/400x400/filters:format(png)/coffee.png").0)
            let framed = try FilterRouteTests.pixels(try await FilterRouteTests.get(client, uris[1]).0)
            #expect(plain.bytes[0..<(3 * 100)] == framed.bytes[0..<(3 * 100)], "the top row's left is the photo's")
        }
    }

    @Test func aRedactedOutputKeepsItsTransparency() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // grace_hopper.jpg with an alpha band: opaque on the left half, half transparent on the right.
        let face = try SourceImage.open(path: Checkout.fixture("grace_hopper.jpg"))
        let pixels = try face.pixels(width: face.size.width, height: face.size.height)
        var rgba = [UInt8](repeating: 0, count: 4 * pixels.width * pixels.height)
        for i in 0..<(pixels.width * pixels.height) {
            rgba[4 * i] = pixels.bytes[3 * i]
            rgba[4 * i + 1] = pixels.bytes[3 * i + 1]
            rgba[4 * i + 2] = pixels.bytes[3 * i + 2]
            rgba[4 * i + 3] = i % pixels.width < pixels.width / 2 ? 255 : 128
        }
        try RenderedImage(rgba: rgba, size: pixels.size).encode(.png).write(to: URL(fileURLWithPath: scratch.file("alpha.png")))
        try await withServer({ $0.root = scratch.path }) { client in
            for format in ["png", "webp"] {
                let plain = try await FilterRouteTests.get(client, "/unsafe/300x300/filters:format(\(format)):quality(100)/alpha.png").0
                let hidden = try await FilterRouteTests.get(client, "/unsafe/300x300/filters:redact(blur):format(\(format)):quality(100)/alpha.png").0
                let (a, b) = (try FilterRouteTests.decode(plain), try FilterRouteTests.decode(hidden))
                #expect(b.bands == 4, "\(format): the redacted output has \(b.bands) bands")
                let alphaA = try a.render(crop: PixelRect(x: 0, y: 0, width: 300, height: 300), to: PixelSize(width: 300, height: 300)).rgbaPixels()
                let alphaB = try b.render(crop: PixelRect(x: 0, y: 0, width: 300, height: 300), to: PixelSize(width: 300, height: 300)).rgbaPixels()
                // Away from the face (the corners: half transparent on the right, opaque on the
                // left), the alpha is as it was; under the face it is hidden too.
                let corners = [(2, 2), (297, 2), (2, 297), (297, 297)].map { x, y in 4 * (y * 300 + x) + 3 }
                #expect(corners.allSatisfy { alphaA[$0] == alphaB[$0] }, "\(format): the alpha band changed away from the face")
                #expect(alphaB[4 * (2 * 300 + 297) + 3] < 200 && alphaB[4 * (297 * 300 + 2) + 3] == 255, "\(format): the transparency is kept")
                #expect(try await Self.faces(in: hidden).isEmpty, "\(format): a face is still found")
            }
        }
    }

    @Test func theURLAndJSONDoorsAnswerAnErrorWhenFacesCannotBeLookedFor() async throws {
        try await withServer({ $0.pipeline.modelsPath = "/nonexistent" }) { client in
            // The crop itself detects nothing; its redaction has to.
            for uri in ["/unsafe/200x200/filters:redact(blur)/grace_hopper.jpg", "/unsafe/200x200/smart/filters:redact(pixelate)/grace_hopper.jpg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .serviceUnavailable, "\(uri)")
                    #expect(response.json?["code"] as? String == "models.missing", "\(uri)")
                    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(uri): no image")
                }
            }
            // The plan's previews are images too: the answer is the error, not a plan without them.
            let body = #"{"source":{"path":"grace_hopper.jpg"},"frames":[{"aspect":"1:1"}],"previews":true,"options":{"detect":"off","redact":"blur"}}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(response.json?["code"] as? String == "models.missing")
            }
            // Without the redaction, the same plan is answered.
            let plain = #"{"source":{"path":"grace_hopper.jpg"},"frames":[{"aspect":"1:1"}],"previews":true,"options":{"detect":"off"}}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: plain)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
        }
    }
}
