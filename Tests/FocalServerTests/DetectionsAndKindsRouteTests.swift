import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `draw_detections()`, `kinds(…)` and `focal()` in fractions, through the URL.
@Suite struct DetectionsAndKindsRouteTests {
    static func pixels(_ data: Data) throws -> PixelBuffer {
        let image = try SourceImage.open(data: data, name: "answer")
        return try image.pixels(width: image.size.width, height: image.size.height)
    }

    /// Pixels of exactly `rgb`.
    static func count(_ buffer: PixelBuffer, _ rgb: (red: UInt8, green: UInt8, blue: UInt8)) -> Int {
        stride(from: 0, to: buffer.bytes.count, by: 3).count { i in
            buffer.bytes[i] == rgb.red && buffer.bytes[i + 1] == rgb.green && buffer.bytes[i + 2] == rgb.blue
        }
    }

    @Test func drawnDetectionsOutlineTheCatAndChangeNothingElse() async throws {
        try await withServer { client in
            let plain = try Self.pixels(try await client.execute(uri: "/unsafe/300x300/smart/filters:format(png)/chelsea.png", method: .get) { $0.data })
            let answer = try await client.execute(uri: "/unsafe/300x300/smart/filters:draw_detections():format(png)/chelsea.png", method: .get) {
                response -> Data in
                #expect(response.status == .ok)
                return response.data
            }
            let drawn = try Self.pixels(answer)
            let cat = SubjectKind.cat.traits.rgb
            #expect(Self.count(drawn, cat) > 400, "the cat's box is drawn in its colour")
            // Only outlines changed: most pixels are the plain crop's.
            let same = stride(from: 0, to: plain.bytes.count, by: 3).count { i in plain.bytes[i..<i + 3] == drawn.bytes[i..<i + 3] }
            #expect(same > 300 * 300 * 85 / 100, "\(same) of 90000 pixels unchanged")
            // Off is the plain crop.
            let off = try await client.execute(uri: "/unsafe/300x300/smart/filters:draw_detections(off):format(png)/chelsea.png", method: .get) {
                $0.data
            }
            #expect(try Self.pixels(off).bytes == plain.bytes)
        }
    }

    @Test func kindsChooseWhatTheCropIsBuiltAround() async throws {
        try await withServer { client in
            func strategy(_ uri: String) async throws -> String? {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    return (response.json?["focal"] as? [String: Any])?["strategy"] as? String
                }
            }
            #expect(try await strategy("/unsafe/meta/200x200/smart/chelsea.png") == "pets")
            #expect(try await strategy("/unsafe/meta/200x200/smart/filters:kinds(face)/chelsea.png") == "center", "no face: a centre crop")
            #expect(try await strategy("/unsafe/meta/200x200/smart/filters:kinds(saliency)/chelsea.png") == "saliency")
            #expect(try await strategy("/unsafe/meta/200x200/smart/filters:kinds(no-cat)/chelsea.png") != "pets")
            #expect(try await strategy("/unsafe/meta/200x200/smart/filters:kinds(face+saliency)/astronaut.png") == "faces")
            try await client.execute(uri: "/unsafe/200x200/smart/filters:kinds(glitter)/chelsea.png", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains("kinds") == true)
            }
        }
    }

    @Test func aFocalPointInFractionsIsThePixelOne() async throws {
        try await withServer { client in
            func crop(_ uri: String) async throws -> [String: Double]? {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    return (response.json?["focal"] as? [String: Any])?["crop"] as? [String: Double]
                }
            }
            // astronaut.png is 512×512: 0.25x0.125:0.625x0.5 is 128x64:320x256.
            let relative = try await crop("/unsafe/meta/200x300/filters:focal(0.25x0.125:0.625x0.5)/astronaut.png")
            let pixels = try await crop("/unsafe/meta/200x300/filters:focal(128x64:320x256)/astronaut.png")
            #expect(relative != nil && relative == pixels)
            try await client.execute(uri: "/unsafe/200x300/filters:focal(0.25x0.1:0.6x0.5):focal(10x10:20x20)/astronaut.png", method: .get) {
                #expect($0.status == .badRequest)
            }
        }
    }

    @Test func anAnimationHasItsDetectionsDrawnInEveryFrame() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 400, height: 300), spriteWidth: 240, frames: 6, from: (0, 10), to: (150, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        try await withServer({ $0.root = scratch.path }) { client in
            let data = try await client.execute(uri: "/unsafe/200x200/smart/filters:draw_detections():format(webp)/pan.gif", method: .get) { $0.data }
            let image = try SourceImage.open(data: data, name: "answer")
            let animation = try #require(try image.animation())
            let reader = try image.frames(of: animation)
            let face = SubjectKind.face.traits.rgb
            for index in 0..<animation.frames {
                let frame = try reader.frame(index, crop: PixelRect(x: 0, y: 0, width: 200, height: 200), to: PixelSize(width: 200, height: 200)).pixels()
                // WebP is lossy: count pixels near the face colour.
                let near = stride(from: 0, to: frame.bytes.count, by: 3).count { i in
                    abs(Int(frame.bytes[i]) - Int(face.red)) < 40 && abs(Int(frame.bytes[i + 1]) - Int(face.green)) < 40
                        && abs(Int(frame.bytes[i + 2]) - Int(face.blue)) < 40
                }
                #expect(near > 100, "frame \(index): \(near) pixels of the face's colour")
            }
        }
    }
}
