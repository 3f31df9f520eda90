import Crypto
import Focal
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import FocalServer

/// With a saved crop, every door describes the crop the image URL renders: `meta/`, `/v1/plan`,
/// the `X-Focal-Plan` header and the pixels themselves (compared with a manual crop of the rectangle
/// they report), at outputs smaller than, equal to and larger than the saved crop, and past
/// `maxUpscale`, where the crop is the smallest around the saved one that needs no more.
@Suite struct SavedCropAgreementTests {
    /// The four crops each door reports, and the pixels of the smart image and of a manual crop of
    /// the rectangle reported.
    struct Doors {
        var header: PixelRect?
        var meta: PixelRect?
        var plan: PixelRect?
        var difference: Double?
    }

    static func rect(_ object: Any?) -> PixelRect? {
        guard let o = object as? [String: Any], let x = o["x"] as? Double, let y = o["y"] as? Double,
            let w = o["width"] as? Double, let h = o["height"] as? Double
        else { return nil }
        return PixelRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
    }

    static func doors(_ client: some TestClientProtocol, photo: String, width: Int, height: Int) async throws -> Doors {
        var doors = Doors()
        let smart = try await client.execute(uri: "/unsafe/\(width)x\(height)/smart/\(photo)", method: .get) { response in
            #expect(response.status == .ok, "\(width)x\(height): \(response.status)")
            let plan = response.headers[HTTPField.Name("X-Focal-Plan")!].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
            if let crop = (plan as? [String: Any])?["crop"] as? [Int], crop.count == 4 {
                doors.header = PixelRect(x: crop[0], y: crop[1], width: crop[2], height: crop[3])
            }
            return response.data
        }
        doors.meta = try await client.execute(uri: "/unsafe/meta/\(width)x\(height)/smart/\(photo)", method: .get) {
            rect(($0.json?["focal"] as? [String: Any])?["crop"])
        }
        let body = #"{"source":{"path":"\#(photo)"},"frames":[{"width":\#(width),"height":\#(height)}]}"#
        doors.plan = try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) {
            rect((($0.json?["frames"] as? [[String: Any]])?.first)?["crop"])
        }
        if let crop = doors.header {
            let manual = "/unsafe/\(crop.x)x\(crop.y):\(crop.x + crop.width)x\(crop.y + crop.height)/\(width)x\(height)/\(photo)"
            let reference = try await client.execute(uri: manual, method: .get) { $0.data }
            doors.difference = try meanDifference(smart, reference)
        }
        return doors
    }

    /// The mean absolute difference of two images' samples (0 when identical), decoded for real.
    static func meanDifference(_ a: Data, _ b: Data) throws -> Double {
        let first = try SourceImage.open(data: a, name: "a"), second = try SourceImage.open(data: b, name: "b")
        guard first.size == second.size else { return .infinity }
        let x = try first.pixels(width: first.size.width, height: first.size.height)
        let y = try second.pixels(width: second.size.width, height: second.size.height)
        guard x.bytes.count == y.bytes.count, !x.bytes.isEmpty else { return .infinity }
        var total = 0
        for i in 0..<x.bytes.count { total += abs(Int(x.bytes[i]) - Int(y.bytes[i])) }
        return Double(total) / Double(x.bytes.count)
    }

    static func save(_ client: some TestClientProtocol, photo: Fixture, aspect: String, crop: PixelRect) async throws {
        let id = SHA256.hash(data: try photo.data).map { String(format: "%02x", $0) }.joined()
        let body = #"{"x":\#(crop.x),"y":\#(crop.y),"width":\#(crop.width),"height":\#(crop.height)}"#
        try await client.execute(
            uri: "/v1/images/\(id)/overrides/\(aspect)", method: .put, headers: [.authorization: "Bearer \(TestSecrets.token)"],
            body: ByteBuffer(string: body)
        ) { #expect($0.status == .created || $0.status == .ok, "\(String(decoding: $0.data, as: UTF8.self))") }
    }

    /// The example of the issue that found it: a 16:9 crop saved on grace_hopper.jpg.
    @Test(arguments: [(352, 198), (640, 360), (1920, 1080), (3200, 1800)])
    func graceHopperAtEverySize(width: Int, height: Int) async throws {
        let saved = PixelRect(x: 92, y: 90, width: 336, height: 189)
        try await withServer { client in
            try await Self.save(client, photo: .graceHopper, aspect: "16x9", crop: saved)
            let doors = try await Self.doors(client, photo: "grace_hopper.jpg", width: width, height: height)
            let expected = SavedCropRule.crop(
                for: saved, target: .size(width: width, height: height), imageSize: PixelSize(width: 512, height: 600), maxUpscale: 8)
            #expect(doors.header == expected, "header \(String(describing: doors.header)) against \(expected)")
            #expect(doors.meta == expected, "meta/ \(String(describing: doors.meta)) against \(expected)")
            #expect(doors.plan == expected, "/v1/plan \(String(describing: doors.plan)) against \(expected)")
            #expect((doors.difference ?? .infinity) < 0.5, "the pixels are those of the reported crop: \(String(describing: doors.difference))")
            if width <= 2688 {
                #expect(expected == saved, "within maxUpscale the saved crop is the crop")
            } else {
                #expect(expected.width * 8 >= width && expected.height * 8 >= height, "past it, one that needs no more")
                #expect(expected.x <= saved.x && expected.y <= saved.y && expected.x + expected.width >= saved.x + saved.width)
            }
        }
    }

    /// Random saved crops on two photos, at random output sizes of their aspect (smaller, equal,
    /// larger, and past `maxUpscale`): every door agrees with the pixels.
    @Test func randomSavedCropsAgree() async throws {
        var random = SplitMix64(seed: 0xF0CA1)
        let photos: [(Fixture, PixelSize)] = [(.chelsea, PixelSize(width: 451, height: 300)), (.coffee, PixelSize(width: 600, height: 400))]
        let aspects: [(String, Int, Int)] = [("1x1", 1, 1), ("16x9", 16, 9), ("4x5", 4, 5)]
        for round in 0..<6 {
            let (photo, size) = photos[round % photos.count]
            let (key, a, b) = aspects[Int.random(in: 0..<aspects.count, using: &random)]
            let unit = Int.random(in: 4...max(4, min(size.width / a, size.height / b)), using: &random)
            let crop = PixelRect(
                x: Int.random(in: 0...(size.width - unit * a), using: &random), y: Int.random(in: 0...(size.height - unit * b), using: &random),
                width: unit * a, height: unit * b)
            let scale = [0.5, 1.0, 2.0, 11.0][round % 4]
            let width = max(a, Int(Double(crop.width) * scale) / a * a), height = width / a * b
            guard width <= 8192, height <= 8192, width * height <= 16_777_216 else { continue }
            try await withServer { client in
                try await Self.save(client, photo: photo, aspect: key, crop: crop)
                let doors = try await Self.doors(client, photo: photo.rawValue, width: width, height: height)
                let expected = SavedCropRule.crop(for: crop, target: .size(width: width, height: height), imageSize: size, maxUpscale: 8)
                #expect(doors.header == expected && doors.meta == expected && doors.plan == expected,
                    "\(photo) \(crop) at \(width)x\(height): header \(String(describing: doors.header)), meta \(String(describing: doors.meta)), plan \(String(describing: doors.plan)), rule \(expected)")
                #expect((doors.difference ?? .infinity) < 0.5, "\(photo) \(crop) at \(width)x\(height): \(String(describing: doors.difference))")
            }
        }
    }
}
