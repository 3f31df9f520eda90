import Focal
import FocalImaging
import FocalRuntime
import FocalTestSupport
import Foundation
import Testing

/// Animated GIF and WebP inputs come out animated: every frame cropped, the window following the
/// subjects of the whole animation (never only the first frame's), moving no faster than its bound,
/// with the input's frame count, delays and loop.
@Suite struct AnimationTests {
    static let pipeline = makePipeline()

    /// Grace Hopper's face in her photo's own pixels, as Focal finds it.
    static func face(_ fixture: Fixture) async throws -> Box {
        let found = try await pipeline.analyze(.file(fixture.path), scope: .crop).subjects
        return try #require(found.first { $0.kind == .face }).box
    }

    /// Opens an output and checks it animates as the input did.
    static func frames(of data: Data, _ animation: PanningAnimation) throws -> Animation {
        let image = try SourceImage.open(data: data, name: "output")
        let read = try #require(try image.animation(), "the output is still")
        #expect(read.frames == animation.delays.count)
        #expect(read.delays == animation.delays)
        #expect(read.loop == animation.loop)
        return read
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aPanAcrossMoreThanOneWindowIsFollowed(format: ImageFormat) async throws {
        // 640×300: a square window is 300 wide; the photo crosses 400 px.
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 640, height: 300), spriteWidth: 240, frames: 30, from: (0, 10), to: (400, 10), format: format)
        let face = try await Self.face(.graceHopper)
        let result = try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 200, height: 200))
        #expect(result.format == format, "the input's format is kept")
        let output = try Self.frames(of: result.data, pan)
        #expect(output.canvas == PixelSize(width: 200, height: 200))
        let frames = try #require(result.plan.frames)
        #expect(frames.count == 30)
        let step = MotionPlanner.maxStep(for: frames[0].crop.size)
        for (index, frame) in frames.enumerated() {
            let expected = pan.box(face, inFrame: index)
            #expect(frame.crop.box.contains(expected, tolerance: 2), "frame \(index): \(frame.crop) loses the face at \(expected)")
            if index > 0 {
                let last = frames[index - 1].crop
                #expect(abs(frame.crop.x - last.x) <= step.x && abs(frame.crop.y - last.y) <= step.y, "frame \(index) jumps")
            }
        }
        #expect(frames[29].crop.x - frames[0].crop.x > 250, "the window moved with the face")
        // The face is in the output's frames: Focal finds it in the first and the last.
        let reader = try SourceImage.open(data: result.data, name: "output").frames(of: output)
        for index in [0, 29] {
            let pixels = try reader.frame(index, crop: PixelRect(x: 0, y: 0, width: 200, height: 200), to: PixelSize(width: 200, height: 200))
            let found = try await Self.pipeline.analyze(.data(try pixels.encode(.png), name: "frame \(index)"), scope: .crop).subjects
            #expect(found.contains { $0.kind == .face }, "no face in output frame \(index)")
        }
    }

    @Test func aSmallPanKeepsOneStillWindowAndFormatsFollowTheRequest() async throws {
        let pan = try PanningAnimation(
            .astronaut, canvas: PixelSize(width: 400, height: 300), spriteWidth: 200, frames: 8, from: (40, 20), to: (120, 60), format: .gif,
            delay: 120, loop: 0)
        let face = try await Self.face(.astronaut)
        let result = try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 160, height: 160))
        let frames = try #require(result.plan.frames)
        #expect(Set(frames.map(\.crop)).count == 1, "one window holds the face in every frame")
        for index in frames.indices { #expect(frames[index].crop.box.contains(pan.box(face, inFrame: index), tolerance: 2)) }
        _ = try Self.frames(of: result.data, pan)
        // WebP asked for, or by the automatic format: animated WebP; else GIF.
        var options = FocalOptions(format: .webp)
        let webp = try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 160, height: 160), options: options)
        #expect(webp.format == .webp)
        _ = try Self.frames(of: webp.data, pan)
        options = FocalOptions()
        options.automaticFormat = [.avif, .webp]
        #expect(try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 160, height: 160), options: options).format == .webp)
        options.automaticFormat = []
        #expect(try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 160, height: 160), options: options).format == .gif)
        // A still format asked for: the first frame alone.
        let still = try await Self.pipeline.crop(.data(pan.data, name: "pan"), to: .size(width: 160, height: 160), options: FocalOptions(format: .jpeg))
        #expect(still.format == .jpeg && still.plan.frames == nil)
        #expect(try SourceImage.open(data: still.data).pages == 1)
    }

    /// A GIF of `frames` frames of a `canvas`, each coded as one pixel, written byte by byte (no encoder makes frame
    /// bombs cheaply).
    static func tinyFrameGIF(canvas: PixelSize, frames: Int) -> Data {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        var bytes: [UInt8] = Array("GIF89a".utf8) + le16(canvas.width) + le16(canvas.height) + [0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0, 2, 0, 0, 0]
            bytes += [0x2C, 0, 0, 0, 0] + le16(canvas.width) + le16(canvas.height) + [0, 2, 2, 0x44, 0x01, 0]
        }
        return Data(bytes + [0x3B])
    }

    @Test func frameBombsAreRefusedAtTheHeaderOrServedStill() async throws {
        // Thousands of tiny frames; a few frames of a huge canvas.
        let many = Self.tinyFrameGIF(canvas: PixelSize(width: 64, height: 64), frames: 5000)
        let huge = Self.tinyFrameGIF(canvas: PixelSize(width: 5000, height: 5000), frames: 10)
        for (bomb, limit) in [(many, "maxFrames"), (huge, "maxAnimationPixels")] {
            let started = ContinuousClock.now
            await #expect {
                _ = try await Self.pipeline.crop(.data(bomb, name: "bomb"), to: .size(width: 32, height: 32))
            } throws: { error in
                (error as? LimitExceeded)?.code == .inputTooManyFrames && (error as? LimitExceeded)?.limit == limit
            }
            // Refused from the header: seconds, even queued behind the suite's other decodes on
            // two cores (decoding the huge one would hold a gigabyte).
            #expect(ContinuousClock.now - started < .seconds(60))
        }
        // Too many output pixels: refused, or the first frame when the operator says so.
        let pan = try PanningAnimation(
            .astronaut, canvas: PixelSize(width: 300, height: 300), spriteWidth: 200, frames: 6, from: (0, 0), to: (100, 100), format: .gif)
        let strict = makePipeline { $0.limits.maxAnimationOutputPixels = 100_000 }
        await #expect(throws: LimitExceeded.self) { _ = try await strict.crop(.data(pan.data, name: "pan"), to: .size(width: 200, height: 200)) }
        let lenient = makePipeline {
            $0.limits.maxAnimationOutputPixels = 100_000
            $0.limits.overlongAnimations = .firstFrame
        }
        let first = try await lenient.crop(.data(pan.data, name: "pan"), to: .size(width: 200, height: 200))
        #expect(first.plan.frames == nil && first.format == .gif, "the first frame, still, in the source's format")
        // An aspect's output is the merged crop's size: its frames are checked on that.
        await #expect(throws: LimitExceeded.self) { _ = try await strict.crop(.data(pan.data, name: "pan"), to: .aspect(width: 1, height: 1)) }
        // A plan decodes no frame but the sampled ones: over the limits, it describes the still crop.
        let plans = try await strict.plan(.data(pan.data, name: "pan"), frames: [.fixed(.size(width: 200, height: 200))])
        #expect(plans.frames.count == 1 && plans.frames.first?.plan.frames == nil)
        let few = makePipeline { $0.limits.maxFrames = 3 }
        #expect(try await few.plan(.data(pan.data, name: "pan"), frames: [.fixed(.size(width: 100, height: 100))]).frames.first?.plan.frames == nil)
        // A redaction searches at most maxRedactedFrames frames.
        let redacting = makePipeline { $0.limits.maxRedactedFrames = 4 }
        var options = FocalOptions()
        options.redaction = try Redaction(text: "blur")
        await #expect {
            _ = try await redacting.crop(.data(pan.data, name: "pan"), to: .size(width: 100, height: 100), options: options)
        } throws: { ($0 as? LimitExceeded)?.limit == "maxRedactedFrames" }
    }

    @Test func aBrokenFrameIsAnErrorNotACrash() async throws {
        let pan = try PanningAnimation(
            .chelsea, canvas: PixelSize(width: 200, height: 150), spriteWidth: 150, frames: 10, from: (0, 0), to: (50, 0), format: .gif)
        // Cut off half way, and garbled half way.
        var garbled = pan.data
        let middle = garbled.count / 2
        for i in middle..<(middle + 64) { garbled[i] = 0xFF }
        for bad in [pan.data.prefix(pan.data.count / 2), garbled] {
            do {
                let result = try await Self.pipeline.crop(.data(Data(bad), name: "broken"), to: .size(width: 100, height: 100))
                Issue.record("a broken GIF gave \(result.data.count) bytes of \(result.format)")
            } catch let error as ImagingError {
                #expect(error.code == .inputCorrupt, "\(error)")
            }
        }
    }
}

/// `focal crop` writes animations, and says so in its JSON line.
@Suite struct AnimationCLITests {
    @Test func theCommandLineWritesAnAnimatedGIFAndListsItsFrames() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 560, height: 300), spriteWidth: 240, frames: 12, from: (0, 10), to: (320, 10), format: .webp)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.webp")))
        let run = try await Run(["crop", scratch.file("pan.webp"), "--size", "160x160", "--format", "gif", "--redact", "blur", "--json", "-o", scratch.file("out.gif")])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.objects.first)
        let frames = try #require(line["frames"] as? [[String: Any]])
        #expect(frames.count == 12 && frames.allSatisfy { $0["delay"] as? Int == 80 })
        let written = try SourceImage.open(path: scratch.file("out.gif"))
        #expect(written.format == "gif" && written.size == PixelSize(width: 160, height: 160))
        #expect(try written.animation()?.frames == 12)
        // A still format: the first frame, and no frames listed.
        let still = try await Run(["crop", scratch.file("pan.webp"), "--size", "160x160", "--json", "-o", scratch.file("first.png")])
        #expect(still.status == 0 && still.objects.first?["frames"] == nil)
        #expect(try SourceImage.open(path: scratch.file("first.png")).pages == 1)
    }
}
