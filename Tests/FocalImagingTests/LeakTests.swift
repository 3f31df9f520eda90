import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// libvips objects and pixel buffers come back to where they were after repeated work.
    ///
    /// The counts are process-wide, so nothing else may decode while they are measured: `make
    /// test` runs these in a process of their own. (Every suite of this target is nested in
    /// `LibvipsLayer`, which is `.serialized`; in a plain `swift test` the tests of other targets
    /// may still overlap, so the final count is polled for a moment before it is judged, and a
    /// leak of one object per iteration, 30 here, is far above that noise.)
    ///
    /// libvips tracks its objects only when leak checking is on from its start: turning it on
    /// while other tests' images exist aborts in libvips (`vips_area_unref` finds an area it never
    /// listed). So these run when the process starts with `VIPS_LEAK=1`, as `make test` does.
    @Suite("libvips leaks", .serialized, .enabled(if: ProcessInfo.processInfo.environment["VIPS_LEAK"] != nil, "run with VIPS_LEAK=1, as make test does"))
    struct LeakTests {
        /// One image's full trip: open (file and bytes), proxy, render, encode each format.
        static func oneRound() throws {
            let png = try SourceImage.open(path: Fixture.coffee.path)
            _ = try png.proxy(longSide: 120)
            _ = try png.render(crop: PixelRect(x: 100, y: 50, width: 300, height: 200), to: PixelSize(width: 90, height: 60)).encode(.jpeg)
            _ = try png.render(crop: PixelRect(x: 0, y: 0, width: 600, height: 400), to: PixelSize(width: 61, height: 40)).encode(.png)
            let jpeg = try SourceImage.open(data: try Fixture.graceHopper.data)
            _ = try jpeg.proxy(longSide: 100)
            _ = try jpeg.render(crop: PixelRect(x: 0, y: 0, width: 256, height: 300), to: PixelSize(width: 64, height: 75)).encode(.webp)
            _ = try jpeg.decode(width: 50, height: 50).pixels()
            _ = try RenderedImage(pixels: .make(width: 16, height: 16) { x, _ in RGB(UInt8(x), 0, 0) }).encode(.png)
            // Failures must clean up too.
            _ = try? SourceImage.open(data: Data("not an image".utf8))
            let cut = try Fixture.graceHopper.data
            _ = try? SourceImage.open(data: cut.prefix(cut.count / 2)).proxy(longSide: 100)
        }

        /// Counts now, polling up to three seconds for them to come down to `baseline`.
        static func settledCounts(towards baseline: (objects: Int, allocations: Int)) async -> (objects: Int, allocations: Int) {
            var counts = (objects: Vips.objectsAlive, allocations: Vips.trackedAllocations)
            for _ in 0..<60 where counts.objects > baseline.objects || counts.allocations > baseline.allocations {
                try? await Task.sleep(for: .milliseconds(50))
                counts = (Vips.objectsAlive, Vips.trackedAllocations)
            }
            return counts
        }

        /// The counts after a warm-up round (libvips's per-thread buffers and lazily made
        /// classes), once they have held still for 200 ms (up to three seconds): a worker's
        /// buffers of the warm-up may still be going away, and a baseline that counts them is
        /// too high for `keptImagesAreCounted` (seen on a loaded machine: 18, then 10).
        static func prepare() async throws -> (objects: Int, allocations: Int) {
            try Vips.configure(threadsPerPipeline: 1, cachedOperations: 0)
            Vips.setLeakTracking(true)
            try oneRound()
            var last = (objects: Vips.objectsAlive, allocations: Vips.trackedAllocations)
            var still = 0
            for _ in 0..<60 where still < 4 {
                try? await Task.sleep(for: .milliseconds(50))
                let now = (objects: Vips.objectsAlive, allocations: Vips.trackedAllocations)
                still = now == last ? still + 1 : 0
                last = now
            }
            return last
        }

        @Test func thirtyRoundsReturnToTheBaseline() async throws {
            let baseline = try await Self.prepare()
            for _ in 0..<30 { try Self.oneRound() }
            let after = await Self.settledCounts(towards: baseline)
            #expect(after.objects <= baseline.objects, "libvips objects: \(baseline.objects) -> \(after.objects)")
            #expect(after.allocations <= baseline.allocations, "pixel buffers: \(baseline.allocations) -> \(after.allocations)")
        }

        /// The counters do see images that are kept alive, so the test above can fail: this is
        /// the deliberate leak, kept as a test of the test.
        @Test func keptImagesAreCounted() async throws {
            let baseline = try await Self.prepare()
            var kept: [RenderedImage] = []
            for _ in 0..<5 {
                let source = try SourceImage.open(path: Fixture.coffee.path)
                kept.append(try source.render(crop: PixelRect(x: 0, y: 0, width: 300, height: 200), to: PixelSize(width: 30, height: 20)))
                kept.append(try RenderedImage(pixels: .make(width: 8, height: 8) { _, _ in RGB(1, 2, 3) }))
            }
            #expect(Vips.objectsAlive >= baseline.objects + 10, "each kept image holds at least one object")
            #expect(Vips.trackedAllocations >= baseline.allocations + 5, "images made from pixels hold a buffer each")
            #expect(kept.count == 10)
            kept.removeAll()
            let after = await Self.settledCounts(towards: baseline)
            #expect(after.objects <= baseline.objects)
            #expect(after.allocations <= baseline.allocations)
        }
    }
}
