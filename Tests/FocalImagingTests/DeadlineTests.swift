import FocalCore
import FocalImaging
import FocalTestSupport
import Foundation
import Testing

extension LibvipsLayer {
    /// Every decode stops once its input's deadline has passed. The slowest inputs of the corpus
    /// (large but within the limits), given 200 ms, end with `input.timeout` (or a result, when a
    /// fast machine makes it) soon after: libvips checks the deadline between the tiles it
    /// computes, so what may run past it is one decoder step that holds the whole image
    /// (measured: 1.7 s for a 4400x4400 interlaced 16-bit PNG, 1.1 s for a 5000x5000 HEIC, under
    /// load; 0.2-0.6 s for the rest).
    @Suite("SourceImage: deadlines") struct DeadlineTests {
        static let slow = [
            "bomb-png-10000x10000-1bit.png", "bomb-tiff-one-strip-9000.tif", "bomb-jpeg-progressive-8000x8400.jpg",
            "bomb-png-interlaced-16bit-rgba-4400.png", "bomb-heic-5000.heic", "bomb-webp-7000.webp", "extreme-tiff-60000x600.tif",
        ]

        @Test(arguments: slow)
        func slowDecodesStopAtTheDeadline(name: String) throws {
            let path = HostileCorpus.folder + "/" + name
            let data = try #require(FileManager.default.contents(atPath: path), "no \(path): run make corpus")
            let image = try SourceImage.open(data: data, name: name, limits: ImageLimits(timeout: .milliseconds(200)))
            let start = ContinuousClock.now
            let whole = PixelRect(x: 0, y: 0, width: image.size.width, height: image.size.height)
            do {
                _ = try image.render(crop: whole, to: PixelSize(width: 400, height: max(1, 400 * image.size.height / image.size.width)))
            } catch let error as any FocalError {
                #expect(error.code == .inputTimeout, "\(name): \(error)")
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < .seconds(4), "\(name) ran \(elapsed) with a 200 ms deadline")
        }
    }
}

extension LibvipsLayer.DeadlineTests {
    /// Encoding is inside the deadline too: the output is encoded as the decoder delivers rows.
    @Test(arguments: [ImageFormat.jpeg, .png, .webp])
    func encodingStopsAtTheDeadline(format: ImageFormat) throws {
        let name = "bomb-png-10000x10000-1bit.png"
        let data = try #require(FileManager.default.contents(atPath: HostileCorpus.folder + "/" + name), "run make corpus")
        // 100 MP cannot be decoded in 50 ms: the deadline must stop it.
        let image = try SourceImage.open(data: data, name: name, limits: ImageLimits(timeout: .milliseconds(50)))
        let start = ContinuousClock.now
        let error = focalError {
            try image.encode(crop: PixelRect(x: 0, y: 0, width: 10_000, height: 10_000), to: PixelSize(width: 4000, height: 4000), format: format)
        }
        #expect(error?.code == .inputTimeout, "\(format): \(String(describing: error))")
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(2), "\(format) ran \(elapsed) with a 50 ms deadline")
    }
}
