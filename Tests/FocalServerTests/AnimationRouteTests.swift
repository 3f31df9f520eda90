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

/// Animations through the service: the thumbor URL, the automatic format, `meta/`, `/v1/plan` and
/// `redact()` on every frame.
@Suite struct AnimationRouteTests {
    /// A folder holding a panning GIF of Grace Hopper (16 frames of 560×300, or `short`: 6 of
    /// 320×200), served as the root.
    static func withAnimationRoot(
        short: Bool = false, _ body: @Sendable @escaping (any TestClientProtocol, PanningAnimation) async throws -> Void
    ) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pan = short
            ? try PanningAnimation(
                .graceHopper, canvas: PixelSize(width: 320, height: 200), spriteWidth: 160, frames: 6, from: (0, 10), to: (160, 10), format: .gif)
            : try PanningAnimation(
                .graceHopper, canvas: PixelSize(width: 560, height: 300), spriteWidth: 240, frames: 16, from: (0, 10), to: (320, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        try await withServer({
            $0.root = scratch.path
            // Every frame is searched for a redaction while the whole suite shares the cores.
            $0.requestTimeout = .seconds(300)
        }) { client in try await body(client, pan) }
    }

    @Test func theURLTheAutomaticFormatMetaAndPlanDescribeEveryFrame() async throws {
        try await Self.withAnimationRoot { client, pan in
            try await client.execute(uri: "/unsafe/200x200/smart/pan.gif", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/gif")
                let image = try SourceImage.open(data: response.data, name: "answer")
                let animation = try #require(try image.animation())
                #expect(animation.frames == 16 && animation.delays == pan.delays && animation.loop == pan.loop)
                #expect(image.size == PixelSize(width: 200, height: 200))
            }
            // format(auto) with a browser's Accept: animated WebP; without WebP: GIF.
            try await client.execute(
                uri: "/unsafe/200x200/smart/filters:format(auto)/pan.gif", method: .get, headers: [.accept: "image/avif,image/webp,*/*"]
            ) { response in
                #expect(response.headers[.contentType] == "image/webp")
                let frames = try SourceImage.open(data: response.data, name: "answer").animation()?.frames
                #expect(frames == 16)
            }
            try await client.execute(uri: "/unsafe/200x200/smart/filters:format(auto)/pan.gif", method: .get, headers: [.accept: "*/*"]) {
                #expect($0.headers[.contentType] == "image/gif")
            }
            // A still format: the first frame.
            try await client.execute(uri: "/unsafe/200x200/smart/filters:format(png)/pan.gif", method: .get) { response in
                #expect(response.headers[.contentType] == "image/png")
                let pages = try SourceImage.open(data: response.data, name: "answer").pages
                #expect(pages == 1)
            }
            let meta = try await client.execute(uri: "/unsafe/meta/200x200/smart/pan.gif", method: .get) {
                try #require(($0.json?["focal"] as? [String: Any])?["frames"] as? [[String: Any]])
            }
            #expect(meta.count == 16 && meta.allSatisfy { $0["delay"] as? Int == 80 })
            let xs = meta.compactMap { ($0["crop"] as? [String: Any])?["x"] as? Int }
            #expect(xs.count == 16 && (xs.last ?? 0) > (xs.first ?? 0), "the window moves: \(xs)")
            let body = ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["source": ["path": "pan.gif"], "frames": [["width": 200, "height": 200]]]))
            let planned = try await client.execute(uri: "/v1/plan", method: .post, body: body) {
                try #require(($0.json?["frames"] as? [[String: Any]])?.first?["frames"] as? [[String: Any]])
            }
            #expect(planned.compactMap { ($0["crop"] as? [String: Any])?["x"] as? Int } == xs, "/v1/plan and meta/ agree")
        }
    }

    /// Where the face is in each output frame is known (the pan, and each frame's crop from
    /// `meta/`): the thorough detector finds nothing there in any frame. (In some 200 px frames
    /// it takes the badge on her cap, 7 px wide, for a face: not hers, and not where hers is.)
    @Test func redactionHidesTheFaceInEveryFrame() async throws {
        let face = try #require(
            try await RedactionRouteTests.pipeline.analyze(.file(Fixture.graceHopper.path), scope: .crop).subjects.first { $0.kind == .face }
        ).box
        try await Self.withAnimationRoot { client, pan in
            let data = try await client.execute(uri: "/unsafe/200x200/smart/filters:redact(pixelate)/pan.gif", method: .get) { response in
                #expect(response.status == .ok)
                return response.data
            }
            let crops = try await client.execute(uri: "/unsafe/meta/200x200/smart/filters:redact(pixelate)/pan.gif", method: .get) {
                try #require(($0.json?["focal"] as? [String: Any])?["frames"] as? [[String: Any]]).compactMap { $0["crop"] as? [String: Int] }
            }
            let image = try SourceImage.open(data: data, name: "redacted")
            let animation = try #require(try image.animation())
            #expect(animation.frames == 16 && crops.count == 16)
            let reader = try image.frames(of: animation)
            for index in 0..<min(animation.frames, crops.count) {
                let crop = crops[index], scale = 200 / Double(crop["width"] ?? 1)
                let inFrame = pan.box(face, inFrame: index)
                let where_ = Box(
                    x: (inFrame.x - Double(crop["x"] ?? 0)) * scale, y: (inFrame.y - Double(crop["y"] ?? 0)) * scale,
                    width: inFrame.width * scale, height: inFrame.height * scale)
                let frame = try reader.frame(index, crop: PixelRect(x: 0, y: 0, width: 200, height: 200), to: PixelSize(width: 200, height: 200))
                let faces = try await RedactionRouteTests.faces(in: try frame.encode(.png))
                #expect(!faces.contains { $0.box.iou(where_) > 0.05 }, "frame \(index): the face at \(where_) is still found: \(faces)")
            }
        }
    }
}
