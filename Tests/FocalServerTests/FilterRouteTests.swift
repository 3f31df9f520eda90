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

/// thumbor's filters through the URL: every effect on a still and on every frame of an animation,
/// the exact arithmetic of the ones thumbor defines byte by byte, the sizing filters, `fill(…)`
/// with `fit-in`, the encoding filters, the delivery filters and the refusals. One test at a
/// time: each renders animations, and the suites beside it have deadlines of their own.
@Suite(.serialized) struct FilterRouteTests {

    static func decode(_ data: Data) throws -> SourceImage { try SourceImage.open(data: data, name: "answer") }

    static func pixels(_ data: Data) throws -> PixelBuffer {
        let image = try decode(data)
        return try image.pixels(width: image.size.width, height: image.size.height)
    }

    /// The body of a GET that must answer 200.
    static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> (Data, HTTPFields) {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body).prefix(300))")
            return (response.data, response.headers)
        }
    }

    @Test("every effect changes a still's pixels and keeps its size, and every frame of an animation", arguments: Effects.all.map { $0.name })
    func everyEffectOnAStillAndAnAnimation(name: String) async throws {
        let effect = try #require(Effects.named(name))
        let argument = effect.examples[0]
        try await AnimationRouteTests.withAnimationRoot(short: true) { client, pan in
            let (plain, _) = try await Self.get(client, "/unsafe/120x120/filters:format(png)/pan.gif")
            let (changed, headers) = try await Self.get(client, "/unsafe/120x120/filters:\(name)(\(argument)):format(png)/pan.gif")
            #expect(headers[.contentType] == "image/png")
            let (a, b) = (try Self.pixels(plain), try Self.pixels(changed))
            // output_crop(…) keeps a part: 0.8 of each side.
            #expect(b.size == (name == "output_crop" ? PixelSize(width: 96, height: 96) : PixelSize(width: 120, height: 120)))
            // background_color() changes only transparency, which this GIF has none of.
            if name == "background_color" { #expect(a.bytes == b.bytes) } else { #expect(a.bytes != b.bytes, "\(name)(\(argument)) changed nothing") }
            let (animated, animatedHeaders) = try await Self.get(client, "/unsafe/120x120/filters:\(name)(\(argument))/pan.gif")
            #expect(animatedHeaders[.contentType] == "image/gif")
            #expect(try Self.decode(animated).pages == pan.offsets.count, "every frame kept")
        }
    }

    @Test func brightnessContrastAndGrayscaleAreThumborsArithmeticInURLOrder() async throws {
        try await withServer { client in
            let base = "/unsafe/160x120/filters:format(png)"
            let plain = try Self.pixels(try await Self.get(client, "\(base)/astronaut.png").0)
            let bright = try Self.pixels(try await Self.get(client, "\(base):brightness(40)/astronaut.png").0)
            #expect(bright.bytes == plain.bytes.map { UInt8(min(255, Int($0) + 102)) }, "255 × 40 / 100 = 102 added to every channel")
            let contrast = try Self.pixels(try await Self.get(client, "\(base):contrast(-30)/astronaut.png").0)
            // (70 × 70) / 100 = 49: each channel 128 + 49 % of its distance from 128, truncated.
            #expect(contrast.bytes == plain.bytes.map { UInt8(clamping: 49 * (Int($0) - 128) / 100 + 128) })
            let gray = try Self.pixels(try await Self.get(client, "\(base):grayscale()/astronaut.png").0)
            var luma: [UInt8] = []
            for i in stride(from: 0, to: plain.bytes.count, by: 3) {
                let (r, g, b) = (Int(plain.bytes[i]), Int(plain.bytes[i + 1]), Int(plain.bytes[i + 2]))
                let l = UInt8((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16)
                luma += [l, l, l]
            }
            #expect(gray.bytes == luma)
            let one = try await Self.get(client, "\(base):brightness(40):contrast(60)/astronaut.png").0
            let other = try await Self.get(client, "\(base):contrast(60):brightness(40)/astronaut.png").0
            #expect(one != other, "the URL's order is the order they apply in")
        }
    }

    @Test func rotateTurnsTheOutputAndBackgroundColorFillsTransparentCorners() async throws {
        try await withServer { client in
            let plain = try Self.pixels(try await Self.get(client, "/unsafe/200x100/filters:format(png)/astronaut.png").0)
            let turned = try Self.pixels(try await Self.get(client, "/unsafe/200x100/filters:rotate(90):format(png)/astronaut.png").0)
            #expect(turned.size == PixelSize(width: 100, height: 200))
            // Anticlockwise, as thumbor: the plain output's top-right pixel is the turned one's top-left.
            #expect(Array(turned.bytes[0..<3]) == Array(plain.bytes[3 * 199..<3 * 200]))
            // meta/ and /v1/plan describe the output as delivered: turned, and in fill's box.
            try await client.execute(uri: "/unsafe/meta/200x100/filters:rotate(90)/astronaut.png", method: .get) { response in
                let target = (response.json?["thumbor"] as? [String: Any])?["target"] as? [String: Any]
                #expect(target?["width"] as? Int == 100 && target?["height"] as? Int == 200, "\(String(describing: target))")
            }
            let body = #"{"source":{"path":"grace_hopper.jpg"},"frames":[{"width":200,"height":100}],"options":{"rotate":"90"}}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                let output = (response.json?["frames"] as? [[String: Any]])?.first?["output"] as? [String: Any]
                #expect(output?["width"] as? Int == 100 && output?["height"] as? Int == 200, "\(String(describing: output))")
            }
            try await client.execute(uri: "/unsafe/meta/fit-in/300x300/filters:fill(ff0000)/grace_hopper.jpg", method: .get) { response in
                let target = (response.json?["thumbor"] as? [String: Any])?["target"] as? [String: Any]
                #expect(target?["width"] as? Int == 300 && target?["height"] as? Int == 300, "\(String(describing: target))")
            }
            // Mirrored first, then turned (thumbor flips before its filters).
            let mirrored = try Self.pixels(try await Self.get(client, "/unsafe/-200x100/filters:format(png)/astronaut.png").0)
            let both = try Self.pixels(try await Self.get(client, "/unsafe/-200x100/filters:rotate(90):format(png)/astronaut.png").0)
            #expect(Array(both.bytes[0..<3]) == Array(mirrored.bytes[3 * 199..<3 * 200]))
            #expect(Array(both.bytes[0..<3]) == Array(plain.bytes[0..<3]))
            let (corners, headers) = try await Self.get(client, "/unsafe/200x100/filters:round_corner(30,0,0,0,true):format(png)/astronaut.png")
            #expect(headers[.contentType] == "image/png")
            #expect(try Self.decode(corners).bands == 4, "transparent corners keep an alpha band")
            let red = try Self.pixels(
                try await Self.get(client, "/unsafe/200x100/filters:round_corner(30,0,0,0,true):background_color(ff0000):format(png)/astronaut.png").0)
            #expect(Array(red.bytes[0..<3]) == [255, 0, 0], "the corner's transparency is filled red")
            let middle = 3 * (50 * 200 + 100)
            #expect(Array(red.bytes[middle..<middle + 3]) == Array(plain.bytes[middle..<middle + 3]), "the middle is unchanged")
        }
    }

    @Test func sizingFiltersAndFillWithFitIn() async throws {
        try await withServer { client in
            func size(_ uri: String) async throws -> PixelSize { try Self.decode(try await Self.get(client, uri).0).size }
            #expect(try await size("/unsafe/fit-in/1000x1000/astronaut.png") == PixelSize(width: 512, height: 512), "fit-in never enlarges")
            #expect(try await size("/unsafe/fit-in/1000x1000/filters:upscale()/astronaut.png") == PixelSize(width: 1000, height: 1000))
            #expect(try await size("/unsafe/900x600/filters:no_upscale()/astronaut.png") == PixelSize(width: 512, height: 512))
            #expect(try await size("/unsafe/300x200/filters:proportion(0.5)/astronaut.png") == PixelSize(width: 150, height: 100))
            let (stretched, headers) = try await Self.get(client, "/unsafe/300x100/filters:stretch()/astronaut.png")
            #expect(try Self.decode(stretched).size == PixelSize(width: 300, height: 100))
            #expect(headers[HTTPField.Name("X-Focal-Strategy")!] == "stretch")
            // grace_hopper.jpg is 512×600: fit in 300×300 it is 256×300, in the middle of a red 300×300.
            let filled = try Self.pixels(try await Self.get(client, "/unsafe/fit-in/300x300/filters:fill(ff0000):format(png)/grace_hopper.jpg").0)
            #expect(filled.size == PixelSize(width: 300, height: 300))
            #expect(Array(filled.bytes[0..<3]) == [255, 0, 0] && Array(filled.bytes[3 * 299..<3 * 300]) == [255, 0, 0])
            #expect(Array(filled.bytes[3 * 150..<3 * 151]) != [255, 0, 0], "the photo is in the middle")
            let blurred = try Self.pixels(try await Self.get(client, "/unsafe/fit-in/300x300/filters:fill(blur):format(png)/grace_hopper.jpg").0)
            #expect(blurred.size == PixelSize(width: 300, height: 300) && Array(blurred.bytes[0..<3]) != [255, 0, 0])
            let (clear, _) = try await Self.get(client, "/unsafe/fit-in/300x300/filters:fill(transparent):format(png)/grace_hopper.jpg")
            #expect(try Self.decode(clear).bands == 4)
            // Convolving filters are bounded by their work (about 90 s of blur(150) on 4000×4000), before any is done.
            try await client.execute(uri: "/unsafe/4000x4000/filters:blur(150)/astronaut.png", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.json?["code"] as? String == "output.too_large")
                #expect((response.json?["message"] as? String)?.contains("smaller") == true, "\(String(buffer: response.body))")
            }
            _ = try await Self.get(client, "/unsafe/300x300/filters:blur(150)/astronaut.png")
            // A box past the output limits is refused before anything is drawn.
            try await client.execute(uri: "/unsafe/fit-in/60000x60000/filters:fill(ff0000)/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.json?["code"] as? String == "output.too_large")
            }
        }
    }

    @Test func encodingFilters() async throws {
        try await withServer { client in
            let (plain, _) = try await Self.get(client, "/unsafe/300x300/filters:format(jpeg)/astronaut.png")
            let (small, _) = try await Self.get(client, "/unsafe/300x300/filters:format(jpeg):max_bytes(9000)/astronaut.png")
            #expect(plain.count > 9000 && small.count <= 9000, "\(plain.count) → \(small.count) bytes")
            #expect(try Self.decode(small).size == PixelSize(width: 300, height: 300))
            let (auto, headers) = try await Self.get(client, "/unsafe/300x300/filters:autojpg()/astronaut.png")
            #expect(headers[.contentType] == "image/jpeg", "a PNG without alpha goes out as JPEG")
            #expect(try Self.decode(auto).format == "jpeg")
            let png = try Self.pixels(try await Self.get(client, "/unsafe/300x300/filters:format(png)/astronaut.png").0)
            let (lossless, _) = try await Self.get(client, "/unsafe/300x300/filters:format(webp):lossless()/astronaut.png")
            #expect(try Self.pixels(lossless).bytes == png.bytes, "every pixel kept")
        }
    }

    /// `max_bytes(N)`'s further encodes are counted in the filters' work bound: a 4096² WebP that
    /// cannot reach 1 byte is refused after its first encode (before, 7 more encodes of 16.7
    /// MP: 21.6 s against 6.05 s), and so is a 4096² JPEG once the 2 encodes its bound allows
    /// found nothing; a small output still searches every quality.
    @Test func maxBytesIsBoundedLikeAFilter() async throws {
        try await withServer { client in
            for format in ["webp", "jpeg"] {
                try await client.execute(uri: "/unsafe/4096x4096/filters:format(\(format)):max_bytes(1)/astronaut.png", method: .get) { response in
                    #expect(response.status == .unprocessableContent, "\(String(buffer: response.body))")
                    #expect(response.json?["code"] as? String == "output.too_large")
                    let message = response.json?["message"] as? String ?? ""
                    #expect(message.contains("max_bytes(1)") && message.contains("maxFilterWork"), "\(message)")
                }
            }
            // The whole search on a small output: quality 1 is served when even it does not fit.
            let (tiny, _) = try await Self.get(client, "/unsafe/64x64/filters:format(jpeg):max_bytes(1)/astronaut.png")
            #expect(try Self.decode(tiny).size == PixelSize(width: 64, height: 64))
        }
    }

    @Test func deliveryFiltersAndDebug() async throws {
        try await withServer { client in
            let (_, aged) = try await Self.get(client, "/unsafe/100x100/filters:max_age(60)/astronaut.png")
            #expect(aged[.cacheControl] == "public, max-age=60")
            let (_, named) = try await Self.get(client, "/unsafe/100x100/filters:attachment()/astronaut.png")
            #expect(named[.contentDisposition] == "attachment; filename=\"astronaut.png\"")
            let (_, given) = try await Self.get(client, "/unsafe/100x100/filters:attachment(portrait.png)/astronaut.png")
            #expect(given[.contentDisposition] == "attachment; filename=\"portrait.png\"")
            try await client.execute(uri: "/unsafe/100x100/filters:attachment(../x)/astronaut.png", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/unsafe/100x100/filters:expire(1000)/astronaut.png", method: .get) { response in
                #expect(response.status == .gone)
                #expect(response.json?["code"] as? String == "request.expired")
            }
            let inAnHour = Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000
            let (_, later) = try await Self.get(client, "/unsafe/100x100/filters:expire(\(inAnHour))/astronaut.png")
            let age = later[.cacheControl]?.split(separator: "=").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) } ?? -1
            #expect(age > 3500 && age <= 3600, "\(String(describing: later[.cacheControl]))")
            let (debug, _) = try await Self.get(client, "/unsafe/debug/200x200/smart/astronaut.png")
            let (drawn, _) = try await Self.get(client, "/unsafe/200x200/smart/filters:draw_detections()/astronaut.png")
            #expect(debug == drawn, "debug/ draws what draw_detections() draws")
        }
    }

    @Test func maxFramesKeepsTheFirstFrames() async throws {
        try await AnimationRouteTests.withAnimationRoot(short: true) { client, _ in
            let (three, _) = try await Self.get(client, "/unsafe/100x100/filters:max_frames(3)/pan.gif")
            #expect(try Self.decode(three).pages == 3)
            let (one, headers) = try await Self.get(client, "/unsafe/100x100/filters:max_frames(1)/pan.gif")
            let pages = try Self.decode(one).pages
            #expect(headers[.contentType] == "image/gif" && pages == 1, "one frame is a still, a GIF as its source (as thumbor)")
            // thumbor's cover() of a GIF is that first frame.
            let (cover, _) = try await Self.get(client, "/unsafe/100x100/filters:cover()/pan.gif")
            #expect(cover == one, "cover() is max_frames(1)")
        }
    }

    @Test("filters Focal does not apply, and arguments out of bounds, are refused with a 400 that says why", arguments: [
        ("redeye()", "red eyes"), ("watermark(a.png,10,10)", "watermark"), ("frame(a.jpg)", "frame"), ("extract_focal(1)", "no arguments"), ("cover(2)", "no arguments"),
        ("cover():max_frames(3)", "one of them"),
        ("blur(x)", "1 to 150"), ("round_corner(10001,0,0,0)", "0 to 10000"),
        ("convolution(1;2;1;2,2,true)", "odd"), ("noise(x)", "0 to 510"), ("sepia()", "Focal knows"), ("fill(glitter)", "fill"),
        ("max_bytes(0)", "max-bytes"), ("colorize(10,10,10)", "colorize"), ("page(0)", "page"), ("orient(45)", "orient"),
        ("hue(361)", "hue"), ("curve([(0,0)])", "curve"),
    ])
    func refusals(filter: String, reason: String) async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/100x100/filters:\(filter)/astronaut.png", method: .get) { response in
                #expect(response.status == .badRequest)
                let message = response.json?["message"] as? String ?? ""
                #expect(message.contains(reason), "\(filter): \(message)")
            }
        }
    }

    @Test func aWatermarkIsLaidOverEveryFrameAndItsContentIsInTheKey() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        @Sendable func square(_ rgb: [UInt8]) throws -> Data {
            let bytes = (0..<(40 * 40)).flatMap { _ in rgb }
            return try RenderedImage(pixels: try #require(PixelBuffer(width: 40, height: 40, bytes: bytes))).encode(.png)
        }
        try square([255, 0, 0]).write(to: URL(fileURLWithPath: scratch.file("mark.png")))
        try FileManager.default.copyItem(atPath: Checkout.fixture("astronaut.png"), toPath: scratch.file("astronaut.png"))
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 400, height: 240), spriteWidth: 200, frames: 6, from: (0, 10), to: (200, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        try await withServer({ $0.root = scratch.path }) { client in
            let plain = try Self.pixels(try await Self.get(client, "/unsafe/200x100/filters:format(png)/astronaut.png").0)
            let (marked, headers) = try await Self.get(client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,0):format(png)/astronaut.png")
            let pixels = try Self.pixels(marked)
            // The red square's 40×40 sits 10 px from the bottom-right corner: (150...189, 50...89).
            let inside = 3 * (70 * 200 + 170)
            #expect(Array(pixels.bytes[inside..<inside + 3]) == [255, 0, 0])
            #expect(Array(pixels.bytes[0..<3 * 100]) == Array(plain.bytes[0..<3 * 100]), "the top row is untouched")
            // A mirrored output is mirrored first, then marked (as thumbor): the mark stays bottom-right.
            let (mirrored, _) = try await Self.get(client, "/unsafe/-200x100/filters:watermark(mark.png,-10,-10,0):format(png)/astronaut.png")
            #expect(Array(try Self.pixels(mirrored).bytes[inside..<inside + 3]) == [255, 0, 0])
            let (half, _) = try await Self.get(client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,50):format(png)/astronaut.png")
            let blended = try Self.pixels(half).bytes[inside]
            #expect(blended > plain.bytes[inside] / 2 + 100 && blended < 255, "half transparent: \(blended)")
            let (invisible, _) = try await Self.get(client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,100):format(png)/astronaut.png")
            #expect(try Self.pixels(invisible).bytes == plain.bytes)
            // Another watermark under the same name is another result.
            try square([0, 0, 255]).write(to: URL(fileURLWithPath: scratch.file("mark.png")))
            let (blue, blueHeaders) = try await Self.get(client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,0):format(png)/astronaut.png")
            #expect(Array(try Self.pixels(blue).bytes[inside..<inside + 3]) == [0, 0, 255])
            #expect(headers[.eTag] != blueHeaders[.eTag])
            // Two watermarks are two marks, each where it is asked, the later over the earlier (as
            // thumbor and imagor draw them); each content is in the key; more than 8 are refused.
            try square([0, 255, 0]).write(to: URL(fileURLWithPath: scratch.file("green.png")))
            let (both, bothHeaders) = try await Self.get(
                client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,0):watermark(green.png,10,10,0):format(png)/astronaut.png")
            let two = try Self.pixels(both)
            let topLeft = 3 * (30 * 200 + 30)
            #expect(Array(two.bytes[inside..<inside + 3]) == [0, 0, 255], "the first mark, bottom-right")
            #expect(Array(two.bytes[topLeft..<topLeft + 3]) == [0, 255, 0], "the second mark, top-left")
            #expect(Array(two.bytes[3 * 100..<3 * 120]) == Array(plain.bytes[3 * 100..<3 * 120]), "between them untouched")
            let (over, _) = try await Self.get(
                client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,0):watermark(green.png,-10,-10,0):format(png)/astronaut.png")
            #expect(Array(try Self.pixels(over).bytes[inside..<inside + 3]) == [0, 255, 0], "the later mark is laid over the earlier")
            try square([255, 255, 0]).write(to: URL(fileURLWithPath: scratch.file("green.png")))
            let (yellow, yellowHeaders) = try await Self.get(
                client, "/unsafe/200x100/filters:watermark(mark.png,-10,-10,0):watermark(green.png,10,10,0):format(png)/astronaut.png")
            #expect(Array(try Self.pixels(yellow).bytes[topLeft..<topLeft + 3]) == [255, 255, 0])
            #expect(bothHeaders[.eTag] != yellowHeaders[.eTag], "the second mark's content is in the key")
            let nine = String(repeating: "watermark(mark.png,0,0,0):", count: 9)
            try await client.execute(uri: "/unsafe/200x100/filters:\(nine)format(png)/astronaut.png", method: .get) {
                #expect($0.status == .badRequest)
                #expect(($0.json?["message"] as? String ?? "").contains("at most 8"))
            }
            // Every frame of an animation.
            let (animated, _) = try await Self.get(client, "/unsafe/120x120/filters:watermark(mark.png,center,center,0)/pan.gif")
            #expect(try Self.decode(animated).pages == 6)
            // Its image is found where the image is, and read as carefully.
            try await client.execute(uri: "/unsafe/200x100/filters:watermark(missing.png,0,0,0)/astronaut.png", method: .get) {
                #expect($0.status == .notFound)
            }
            try await client.execute(uri: "/unsafe/200x100/filters:watermark(../etc/passwd,0,0,0)/astronaut.png", method: .get) {
                #expect($0.status.code >= 400 && $0.status.code < 500)
            }
            try "not an image".write(toFile: scratch.file("notes.png"), atomically: true, encoding: .utf8)
            try await client.execute(uri: "/unsafe/200x100/filters:watermark(notes.png,0,0,0)/astronaut.png", method: .get) {
                #expect($0.status == .unsupportedMediaType)
            }
        }
    }

    /// imagor's `label(…)`: the text drawn where it is placed, in its colour and transparency;
    /// a comma in the text is `%2C`; a text too long or too large is refused, naming the bound.
    @Test func labelsWriteTextWhereTheyArePlaced() async throws {
        try await withServer { client in
            let plain = try Self.pixels(try await Self.get(client, "/unsafe/300x200/filters:format(png)/astronaut.png").0)
            func changed(_ pixels: PixelBuffer, in rows: Range<Int>, _ columns: Range<Int>) -> (count: Int, red: Int) {
                var count = 0, red = 0
                for y in rows {
                    for x in columns {
                        let i = 3 * (y * 300 + x)
                        if pixels.bytes[i..<i + 3] != plain.bytes[i..<i + 3] { count += 1 }
                        if pixels.bytes[i] > 200, pixels.bytes[i + 1] < 60, pixels.bytes[i + 2] < 60 { red += 1 }
                    }
                }
                return (count, red)
            }
            let (topLeft, _) = try await Self.get(client, "/unsafe/300x200/filters:label(Focal%2C%20yes,10,10,30,ff0000):format(png)/astronaut.png")
            let pixels = try Self.pixels(topLeft)
            let inside = changed(pixels, in: 10..<50, 10..<200), outside = changed(pixels, in: 100..<200, 0..<300)
            #expect(inside.red > 100, "red text at the top left: \(inside)")
            #expect(outside.count == 0, "nothing below it changed")
            // Against the bottom-right edge, half transparent: no pure red, but changed pixels there.
            let (corner, _) = try await Self.get(client, "/unsafe/300x200/filters:label(Focal,right,bottom,30,ff0000,50):format(png)/astronaut.png")
            let cornerPixels = try Self.pixels(corner)
            let bottomRight = changed(cornerPixels, in: 150..<200, 200..<300)
            #expect(bottomRight.count > 100 && bottomRight.red == 0, "\(bottomRight)")
            #expect(changed(cornerPixels, in: 0..<100, 0..<300).count == 0)
            for (filter, says) in [
                ("label(\(String(repeating: "a", count: 201)),0,0,10,red)", "at most 200"), ("label(Focal,0,0,900,red)", "1 to 500"),
                ("label(\(String(repeating: "a", count: 101)),0,0,400,red)", "size²"), ("label(Focal,0,0,20,red,0,x%3Bdrop)", "font"),
                ("label(Focal,sideways,0,20,red)", "'sideways'"),
            ] {
                try await client.execute(uri: "/unsafe/300x200/filters:\(filter)/astronaut.png", method: .get) { response in
                    #expect(response.status == .badRequest, "\(filter)")
                    #expect((response.json?["message"] as? String ?? "").contains(says), "\(filter): \(String(decoding: response.data, as: UTF8.self))")
                }
            }
        }
    }

    @Test func trimCutsTheBordersOffFirst() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // astronaut.png (512×512) in the middle of a white 700×600 border, 100 px from the left, 50 from the top.
        let photo = try SourceImage.open(path: Checkout.fixture("astronaut.png"))
        let inner = try photo.pixels(width: 512, height: 512)
        var bytes = [UInt8](repeating: 255, count: 700 * 600 * 3)
        for y in 0..<512 {
            let from = 3 * y * 512, to = 3 * ((50 + y) * 700 + 100)
            bytes.replaceSubrange(to..<(to + 3 * 512), with: inner.bytes[from..<(from + 3 * 512)])
        }
        let bordered = try RenderedImage(pixels: try #require(PixelBuffer(width: 700, height: 600, bytes: bytes))).encode(.png)
        try bordered.write(to: URL(fileURLWithPath: scratch.file("bordered.png")))
        try await withServer({ $0.root = scratch.path }) { client in
            let (plain, _) = try await Self.get(client, "/unsafe/filters:format(png)/bordered.png")
            #expect(try Self.decode(plain).size == PixelSize(width: 700, height: 600))
            let (trimmed, _) = try await Self.get(client, "/unsafe/trim/filters:format(png)/bordered.png")
            #expect(try Self.pixels(trimmed).bytes == inner.bytes, "the border is gone, the photo whole")
            // A manual crop is a part of the trimmed image, as in thumbor.
            let (part, _) = try await Self.get(client, "/unsafe/trim:top-left:10/0x0:100x80/filters:format(png)/bordered.png")
            let cropped = try Self.pixels(part)
            #expect(cropped.size == PixelSize(width: 100, height: 80) && Array(cropped.bytes[0..<3]) == Array(inner.bytes[0..<3]))
            // imagor's relative crop: fractions of the (trimmed) image.
            let (quarter, _) = try await Self.get(client, "/unsafe/trim/0.5x0.5:1.0x1.0/filters:format(png)/bordered.png")
            let corner = try Self.pixels(quarter)
            #expect(corner.size == PixelSize(width: 256, height: 256))
            #expect(Array(corner.bytes[0..<3]) == Array(inner.bytes[3 * (256 * 512 + 256)..<3 * (256 * 512 + 256) + 3]))
            let (relative, _) = try await Self.get(client, "/unsafe/0.25x0.25:0.75x0.75/filters:format(png)/bordered.png")
            let (pixels, _) = try await Self.get(client, "/unsafe/175x150:525x450/filters:format(png)/bordered.png")
            #expect(try Self.pixels(relative).bytes == (try Self.pixels(pixels)).bytes, "fractions of 700×600 are those pixels")
            try await client.execute(uri: "/unsafe/0.5x0.5:0.2x0.9/bordered.png", method: .get) { #expect($0.status == .badRequest) }
            // meta/ plans inside the trimmed image too.
            _ = try await Self.get(client, "/unsafe/meta/trim/200x200/bordered.png")
            try await client.execute(uri: "/unsafe/trim:sideways/100x100/bordered.png", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains("trim") == true)
            }
        }
    }

    /// The image's size and the first subject of `kind` `POST /v1/plan` lists for `options` (an
    /// object of crop options), as [x, y, width, height] (empty when there is none).
    static func subject(_ kind: String, _ client: any TestClientProtocol, _ path: String, options: String) async throws -> (PixelSize, [Double]) {
        let body = #"{"source":{"path":"\#(path)"},"frames":[{"aspect":"1:1"}],"options":\#(options)}"#
        return try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
            #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
            let image = response.json?["image"] as? [String: Any]
            let size = PixelSize(width: image?["width"] as? Int ?? 0, height: image?["height"] as? Int ?? 0)
            let found = ((response.json?["subjects"] as? [[String: Any]]) ?? []).filter { $0["kind"] as? String == kind }
            let first = found.first.map { f in ["x", "y", "width", "height"].map { f[$0] as? Double ?? -1 } } ?? []
            return (size, first)
        }
    }

    @Test func pageAndOrientPickAndTurnTheImageBeforeEverythingElse() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 320, height: 200), spriteWidth: 160, frames: 6, from: (0, 10), to: (160, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        for name in ["grace_hopper.jpg", "astronaut.png"] {
            try FileManager.default.copyItem(atPath: Checkout.fixture(name), toPath: scratch.file(name))
        }
        try await withServer({ $0.root = scratch.path }) { client in
            // page(3): the third frame alone, still (as max_frames(1), a GIF as its source unless
            // asked), as the animation's own frames decode it.
            let (third, headers) = try await Self.get(client, "/unsafe/filters:page(3)/pan.gif")
            #expect(headers[.contentType] == "image/gif")
            #expect(try Self.decode(third).pages == 1, "a still")
            let source = try SourceImage.open(data: pan.data, name: "pan.gif")
            let frames = try source.frames(of: try #require(try source.animation()))
            let whole = PixelRect(x: 0, y: 0, width: source.size.width, height: source.size.height)
            var expected = try frames.frame(0, crop: whole, to: source.size).pixels()
            for index in 1...2 { expected = try frames.frame(index, crop: whole, to: source.size).pixels() }
            let (png, _) = try await Self.get(client, "/unsafe/filters:page(3):format(png)/pan.gif")
            #expect(try Self.pixels(png).bytes == expected.bytes, "frame 3's pixels")
            let (first, _) = try await Self.get(client, "/unsafe/filters:page(1):format(png)/pan.gif")
            #expect(try Self.pixels(first).bytes != expected.bytes)
            try await client.execute(uri: "/unsafe/filters:page(7)/pan.gif", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect((response.json?["message"] as? String)?.contains("has 6 pages") == true, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/unsafe/filters:page(2)/astronaut.png", method: .get) { #expect($0.status == .badRequest) }
            try await client.execute(uri: "/unsafe/filters:page(0)/pan.gif", method: .get) { #expect($0.status == .badRequest) }

            // orient(90): the image turned anticlockwise before the crop: grace_hopper.jpg is 512×600.
            let plain = try Self.pixels(try await Self.get(client, "/unsafe/filters:format(png)/grace_hopper.jpg").0)
            let turned = try Self.pixels(try await Self.get(client, "/unsafe/filters:orient(90):format(png)/grace_hopper.jpg").0)
            #expect(turned.size == PixelSize(width: 600, height: 512))
            for (x, y) in [(0, 0), (599, 0), (0, 511), (300, 200), (17, 433)] {
                // turned (x, y) is plain (511 - y, x)
                let t = 3 * (y * 600 + x), p = 3 * (x * 512 + (511 - y))
                #expect(Array(turned.bytes[t..<t + 3]) == Array(plain.bytes[p..<p + 3]), "(\(x), \(y))")
            }
            let clockwise = try Self.pixels(try await Self.get(client, "/unsafe/filters:orient(270):format(png)/grace_hopper.jpg").0)
            #expect(Array(clockwise.bytes[0..<3]) == Array(plain.bytes[3 * (599 * 512)..<3 * (599 * 512) + 3]), "the bottom-left corner comes to the top")
            // The crop is planned on the turned image: a 300×200 output of a landscape 600×512 view.
            let (cropped, _) = try await Self.get(client, "/unsafe/300x200/smart/filters:orient(90)/grace_hopper.jpg")
            #expect(try Self.decode(cropped).size == PixelSize(width: 300, height: 200))
            // Detection sees the turned image (the plain image's subjects are cached first, and not
            // reused): the salient region of the image upside down is where it lands when turned.
            let (size, salient) = try await Self.subject("saliency", client, "grace_hopper.jpg", options: "{}")
            let (turnedSize, turnedSalient) = try await Self.subject("saliency", client, "grace_hopper.jpg", options: #"{"orient":"180"}"#)
            #expect(size == PixelSize(width: 512, height: 600) && turnedSize == size)
            try #require(salient.count == 4 && turnedSalient.count == 4, "a salient region both ways")
            let predicted = [512 - salient[0] - salient[2], 600 - salient[1] - salient[3], salient[2], salient[3]]
            for (got, want) in zip(turnedSalient, predicted) { #expect(abs(got - want) < 20, "\(turnedSalient) against \(predicted)") }
            #expect(abs(turnedSalient[1] - salient[1]) > 40, "not the upright image's region")
            let (sideways, person) = try await Self.subject("person", client, "grace_hopper.jpg", options: #"{"orient":"90"}"#)
            #expect(sideways == PixelSize(width: 600, height: 512))
            #expect(person.count < 4 || (person[0] + person[2] <= 600.5 && person[1] + person[3] <= 512.5), "inside the turned image: \(person)")
            // Every frame of an animation turns; page and orient go together.
            let (animated, _) = try await Self.get(client, "/unsafe/filters:orient(270)/pan.gif")
            let decoded = try Self.decode(animated)
            #expect(decoded.pages == 6 && decoded.size == PixelSize(width: pan.canvas.height, height: pan.canvas.width))
            let (one, _) = try await Self.get(client, "/unsafe/filters:page(3):orient(180):format(png)/pan.gif")
            #expect(try Self.pixels(one).bytes == Self.turnedHalfway(expected).bytes)
            try await client.execute(uri: "/unsafe/filters:orient(45)/pan.gif", method: .get) { #expect($0.status == .badRequest) }
            // A manual crop is of the turned image: the same pixels as that part of the whole turned image.
            let part = try Self.pixels(try await Self.get(client, "/unsafe/100x50:300x150/filters:orient(90):format(png)/grace_hopper.jpg").0)
            #expect(part.size == PixelSize(width: 200, height: 100))
            var expectedPart: [UInt8] = []
            for y in 50..<150 { expectedPart += turned.bytes[3 * (y * 600 + 100)..<3 * (y * 600 + 300)] }
            #expect(part.bytes == expectedPart)
        }
        // Frame N of an animation costs the N before it: within the animation limits.
        try await withServer({
            $0.root = scratch.path
            $0.pipeline.limits.maxAnimationPixels = 2 * 320 * 200
        }) { client in
            _ = try await Self.get(client, "/unsafe/filters:page(2)/pan.gif")
            try await client.execute(uri: "/unsafe/filters:page(3)/pan.gif", method: .get) { response in
                #expect(response.json?["code"] as? String == "input.too_many_frames", "\(String(buffer: response.body))")
            }
        }
    }

    /// The mean absolute difference of two buffers' bytes (of the same size), 0 to 255.
    static func difference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.bytes.count == b.bytes.count, !a.bytes.isEmpty else { return 255 }
        return Double(zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.bytes.count)
    }

    /// `pixels` turned 180 degrees.
    static func turnedHalfway(_ pixels: PixelBuffer) throws -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: pixels.bytes.count)
        let count = pixels.bytes.count / 3
        for i in 0..<count {
            let j = count - 1 - i
            bytes[3 * j..<3 * j + 3] = pixels.bytes[3 * i..<3 * i + 3]
        }
        return try #require(PixelBuffer(width: pixels.size.width, height: pixels.size.height, bytes: bytes))
    }

    @Test func hueKeepsGreysAndCurveIsThumborsSpline() async throws {
        try await withServer { client in
            let base = "/unsafe/160x120/filters:format(png)"
            let plain = try Self.pixels(try await Self.get(client, "\(base)/astronaut.png").0)
            let gray = try Self.pixels(try await Self.get(client, "\(base):grayscale()/astronaut.png").0)
            let grayTurned = try Self.pixels(try await Self.get(client, "\(base):grayscale():hue(120)/astronaut.png").0)
            let most = zip(gray.bytes, grayTurned.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(most <= 2, "greys have no hue to turn: \(most)")
            let full = try Self.pixels(try await Self.get(client, "\(base):hue(360)/astronaut.png").0)
            let drift = zip(plain.bytes, full.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(drift <= 3, "a whole turn is no change (but rounding): \(drift)")
            let third = try Self.pixels(try await Self.get(client, "\(base):hue(120)/astronaut.png").0)
            #expect(Self.difference(plain, third) > 10)
            // Two points make a straight line: the first curve inverts every channel exactly.
            let line = "[(0,0),(255,255)]"
            let inverted = try Self.pixels(try await Self.get(client, "\(base):curve([(0,255),(255,0)],\(line),\(line),\(line))/astronaut.png").0)
            #expect(inverted.bytes == plain.bytes.map { 255 - $0 })
            let same = try Self.pixels(try await Self.get(client, "\(base):curve(\(line),\(line),\(line),\(line))/astronaut.png").0)
            #expect(same.bytes == plain.bytes)
            // Below the first point, its y; from the last on, the last y (thumbor's table ends).
            let flat = try Self.pixels(try await Self.get(client, "\(base):curve(\(line),[(100,7),(101,7)],\(line),\(line))/astronaut.png").0)
            #expect(stride(from: 0, to: flat.bytes.count, by: 3).allSatisfy { flat.bytes[$0] == 7 })
            // Colour filters keep transparency: the corners round_corner(…,true) cleared stay clear.
            for colour in ["grayscale()", "hue(90)", "curve(\(line),\(line),\(line),[(0,255),(255,0)])", "brightness(20)"] {
                let (data, _) = try await Self.get(client, "/unsafe/200x100/filters:round_corner(30,0,0,0,true):\(colour):format(png)/astronaut.png")
                let image = try Self.decode(data)
                #expect(image.bands == 4, "\(colour) keeps the alpha band")
                let rgba = try image.decode(width: 200, height: 100).rgbaPixels()
                #expect(rgba[3] == 0 && rgba[4 * (50 * 200 + 100) + 3] == 255, "\(colour): the corner clear, the middle opaque")
            }
            for bad in ["curve([(0,0),(0,5)],\(line),\(line),\(line))", "curve(\(line),\(line),\(line))", "curve([(0,0),(256,1)],\(line),\(line),\(line))", "hue(400)"] {
                try await client.execute(uri: "\(base):\(bad)/astronaut.png", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                }
            }
        }
    }

    @Test("the JSON API's previews show the colour effects, the page and the turn", arguments: Effects.all.filter { $0.previewed }.map { $0.name })
    func planPreviewsShowTheEffects(name: String) async throws {
        let effect = try #require(Effects.named(name))
        try await withServer { client in
            func preview(_ options: String) async throws -> PixelBuffer {
                let body = #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"4:3"}],"options":\#(options),"previews":true}"#
                let uri = try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == .ok, "\(String(buffer: response.body).prefix(300))")
                    return ((response.json?["frames"] as? [[String: Any]])?.first?["preview"] as? String) ?? ""
                }
                let data = try #require(Data(base64Encoded: String(uri.dropFirst("data:image/webp;base64,".count))))
                return try Self.pixels(data)
            }
            // No detection: a centre crop is enough to see the effect.
            let plain = try await preview(#"{"detect":"off"}"#)
            let argument = effect.examples[0].replacingOccurrences(of: "\"", with: "\\\"")
            let changed = try await preview(#"{"detect":"off","\#(name.replacingOccurrences(of: "_", with: "-"))":"\#(argument)"}"#)
            if name == "rotate" {
                #expect(changed.size == PixelSize(width: plain.size.height, height: plain.size.width), "turned as the output is")
            } else if name == "background_color" {
                #expect(Self.difference(plain, changed) < 1, "nothing transparent to fill")
            } else {
                #expect(Self.difference(plain, changed) > 2, "\(name)(\(argument)) shows in the preview")
            }
        }
    }

    /// A 42×42 nine-patch: a 10-pixel gold ring (its inner half half transparent) round a clear
    /// middle; the middle 20 columns and rows stretch, and the image goes 10 pixels in.
    static func ninePatch() throws -> Data {
        let size = 42, ring = 10
        var rgba: [UInt8] = []
        for y in 0..<size {
            for x in 0..<size {
                if x == 0 || y == 0 || x == size - 1 || y == size - 1 {
                    let along = (x == 0 || x == size - 1) ? y : x
                    rgba += (1 + ring..<size - 1 - ring).contains(along) ? [0, 0, 0, 255] : [0, 0, 0, 0]
                    continue
                }
                let depth = min(x - 1, y - 1, size - 2 - x, size - 2 - y)
                rgba += depth >= ring ? [0, 0, 0, 0] : [200, 160, 40, depth < ring / 2 ? 255 : 128]
            }
        }
        return try RenderedImage(rgba: rgba, size: PixelSize(width: size, height: size)).encode(.png)
    }

    /// thumbor's `extract_focal()`: a thumbor URL in the image part gives its crop as the focal
    /// region and its image as the source (the same bytes as `focal()` of that crop), however
    /// deep and whatever its host; a plain image part (Pocket's image cache sends one with every
    /// request) is left as it is, as thumbor leaves it.
    @Test func extractFocalReadsTheCropOfTheThumborURLInside() async throws {
        try await withServer { client in
            let base = "/unsafe/400x200/filters:format(png)"
            let plain = try await Self.get(client, "\(base)/astronaut.png").0
            let chosen = try await Self.get(client, "\(base):focal(300x380:420x500)/astronaut.png").0
            #expect(try Self.difference(Self.pixels(plain), Self.pixels(chosen)) > 5, "the chosen region moves the crop")
            for inner in [
                "thumbor.example:8888/unsafe/300x380:420x500/astronaut.png",
                "https://thumbor.example/unsafe/300x380:420x500/smart/filters:quality(80)/astronaut.png",
                "h/unsafe/fit-in/100x100/h2/unsafe/300x380:420x500/astronaut.png",
            ] {
                let (data, _) = try await Self.get(client, "\(base):extract_focal()/\(inner)")
                #expect(data == chosen, "\(inner): as focal() of its crop")
            }
            let signedAnswer = try await client.execute(
                uri: signed("400x200/filters:format(png):extract_focal()/h/0123456789abcdef0123456789ab/300x380:420x500/astronaut.png"), method: .get
            ) { $0.data }
            #expect(signedAnswer == chosen, "an inner signature is not checked: the outer URL is")
            #expect(try await Self.get(client, "\(base):extract_focal()/astronaut.png").0 == plain, "a plain image part: no change")
            #expect(try await Self.get(client, "\(base):cover()/astronaut.png").0 == plain, "cover() leaves a still as it is")
            // meta/ names the source the inner URL names.
            try await client.execute(uri: "/unsafe/meta/400x200/filters:extract_focal()/h/unsafe/300x380:420x500/astronaut.png", method: .get) { response in
                let source = (response.json?["thumbor"] as? [String: Any])?["source"] as? [String: Any]
                #expect(source?["url"] as? String == "astronaut.png", "\(String(describing: response.json))")
            }
            // Nesting past 10 levels, and an image part built to make the grammar backtrack, are
            // answered (no crop found: the whole part is the image, which is not here).
            let deep = String(repeating: "h/unsafe/fit-in/10x10/", count: 11) + "h/unsafe/1x1:9x9/astronaut.png"
            let tangled = "h/unsafe/" + String(repeating: "filters:a()x", count: 600) + ")/" + String(repeating: "1x1:", count: 300) + "/"
            for part in [deep, tangled] {
                try await client.execute(uri: "\(base):extract_focal()/\(part)", method: .get) { response in
                    // (A trailing / is another spelling: redirected without it.)
                    #expect([.notFound, .badRequest, .permanentRedirect].contains(response.status), "\(response.status)")
                }
            }
            // Its region is in pixels: with focal() in fractions of the image, a 400.
            try await client.execute(uri: "\(base):focal(0.1x0.1:0.2x0.2):extract_focal()/h/unsafe/300x380:420x500/astronaut.png", method: .get) { response in
                #expect(response.status == .badRequest && (response.json?["message"] as? String)?.contains("not both") == true)
            }
            // What names the source keeps its one spelling; a crop must have an extent.
            for (bad, code) in [
                ("h/unsafe/300x380:420x500/%61stronaut.png", "request.not_canonical"), ("h/unsafe/300x380:200x500/astronaut.png", "request.invalid"),
                ("h/unsafe/1234567890x1:2x3/h2/unsafe/1x1:5x5/astronaut.png", "request.invalid"),
            ] {
                try await client.execute(uri: "\(base):extract_focal()/\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest && response.json?["code"] as? String == code, "\(bad)")
                }
            }
        }
    }

    @Test func frameGrowsTheOutputByTheNinePatchAndLaysItOver() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Self.ninePatch().write(to: URL(fileURLWithPath: scratch.file("frame.9.png")))
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 240, height: 160), spriteWidth: 120, frames: 4, from: (0, 10), to: (120, 10), format: .gif)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.gif")))
        try FileManager.default.copyItem(atPath: Checkout.fixture("grace_hopper.jpg"), toPath: scratch.file("grace_hopper.jpg"))
        try await withServer({ $0.root = scratch.path }) { client in
            let plain = try Self.pixels(try await Self.get(client, "/unsafe/300x200/filters:format(png)/grace_hopper.jpg").0)
            let (data, _) = try await Self.get(client, "/unsafe/300x200/filters:frame(frame.9.png):format(png)/grace_hopper.jpg")
            let framed = try Self.pixels(data)
            #expect(framed.size == PixelSize(width: 320, height: 220), "10 pixels more on each side")
            func at(_ p: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] { Array(p.bytes[3 * (y * p.size.width + x)..<3 * (y * p.size.width + x) + 3]) }
            #expect(at(framed, 0, 0) == [200, 160, 40] && at(framed, 319, 219) == [200, 160, 40], "the fixed corners are the patch's")
            #expect(at(framed, 160, 2) == [200, 160, 40] && at(framed, 2, 110) == [200, 160, 40], "the edges stretch")
            // Half transparent over the white margin: thumbor's compositing, truncated.
            #expect(at(framed, 7, 110) == [227, 207, 147], "\(at(framed, 7, 110))")
            for (x, y) in [(160, 110), (20, 20), (299, 199)] {
                #expect(at(framed, x, y) == at(plain, x - 10, y - 10), "the image shows through the clear middle at (\(x), \(y))")
            }
            // Every frame of an animation, its canvas grown alike.
            let (animated, _) = try await Self.get(client, "/unsafe/100x100/filters:frame(frame.9.png)/pan.gif")
            let decoded = try Self.decode(animated)
            #expect(decoded.pages == 4 && decoded.size == PixelSize(width: 120, height: 120))
            // A missing patch, or one too small for a border and a picture, is refused.
            try await client.execute(uri: "/unsafe/300x200/filters:frame(missing.png)/grace_hopper.jpg", method: .get) { #expect($0.status == .notFound) }
            try RenderedImage(rgba: [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255], size: PixelSize(width: 2, height: 2)).encode(.png)
                .write(to: URL(fileURLWithPath: scratch.file("tiny.png")))
            try await client.execute(uri: "/unsafe/300x200/filters:frame(tiny.png)/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .badRequest, "\(String(buffer: response.body))")
            }
        }
        // The framed size is held to the output limits before anything is drawn, and so is the patch.
        let big = [UInt8](repeating: 0, count: 400 * 400 * 4)
        try RenderedImage(rgba: big, size: PixelSize(width: 400, height: 400)).encode(.png).write(to: URL(fileURLWithPath: scratch.file("big.png")))
        try await withServer({
            $0.root = scratch.path
            $0.pipeline.limits.maxOutputSide = 310
        }) { client in
            for uri in ["/unsafe/300x200/filters:frame(frame.9.png)/grace_hopper.jpg", "/unsafe/100x100/filters:frame(big.png)/grace_hopper.jpg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .unprocessableContent, "\(uri)")
                    #expect(response.json?["code"] as? String == "output.too_large")
                }
            }
        }
    }
}
