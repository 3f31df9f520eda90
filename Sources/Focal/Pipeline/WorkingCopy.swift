import FocalCore
import FocalImaging
import FocalRuntime
import Foundation
import Synchronization

/// One image decoded once, at the scale its job needs, and everything derived from that decode:
/// the copies detectors look at, and the crop when the decode holds enough pixels for it.
///
/// The base decode (shrink-on-load) has the long side the job asked for: the detectors' size, or
/// more when the output needs more (a 2000 px banner from a 12 MP photo). Detectors' copies are
/// resized from it in memory; only a copy larger than it decodes again. A crop is rendered from
/// it when it holds at least as many pixels as the output needs, so a typical avatar decodes the
/// file once in all.
final class WorkingCopy: Sendable {
    let image: SourceImage
    private let pool: NativeWorkPool
    /// The size of the base decode.
    let baseSize: PixelSize
    private let base = Mutex<Task<RenderedImage, any Error>?>(nil)
    private let onDecode: @Sendable () -> Void
    /// Whether every copy comes from the base (a frame of an animation, decoded already), never
    /// from the file.
    private let baseOnly: Bool

    /// - Parameters:
    ///   - image: The opened image.
    ///   - baseLongSide: The long side of the base decode; never more than the image's own.
    ///   - pool: Where decoding and resizing run.
    ///   - onDecode: Called for every decode of the file (for statistics).
    init(image: SourceImage, baseLongSide: Int, pool: NativeWorkPool, onDecode: @escaping @Sendable () -> Void) {
        self.image = image
        self.pool = pool
        self.onDecode = onDecode
        baseSize = image.size.fitting(longSide: baseLongSide)
        baseOnly = false
    }

    /// A copy of one frame of an animation, decoded already: every detector's copy is resized from it.
    /// - Parameters:
    ///   - image: The opened image (its size is the frame's canvas).
    ///   - frame: The frame, at the canvas's size or smaller.
    ///   - pool: Where resizing runs.
    init(image: SourceImage, frame: RenderedImage, pool: NativeWorkPool) {
        self.image = image
        self.pool = pool
        onDecode = {}
        baseSize = frame.size
        baseOnly = true
        base.withLock { $0 = Task { frame } }
    }

    /// The detectors' copies made so far, by size: faces and objects ask for the same proxy.
    private let copies = Mutex<[PixelSize: Task<PixelBuffer, any Error>]>([:])

    /// An RGB copy whose long side is `longSide` (enlarged only when `enlarge`), made once per size.
    func pixels(longSide: Int, enlarge: Bool) async throws -> PixelBuffer {
        let wanted = image.size.fitting(longSide: longSide, enlarge: enlarge)
        let task = copies.withLock { copies in
            if let task = copies[wanted] { return task }
            let task = Task { try await self.makePixels(wanted, longSide: longSide) }
            copies[wanted] = task
            return task
        }
        return try await task.value
    }

    private func makePixels(_ wanted: PixelSize, longSide: Int) async throws -> PixelBuffer {
        let (image, pool) = (self.image, self.pool)
        if !baseOnly, max(wanted.width, wanted.height) > max(baseSize.width, baseSize.height) && wanted.area <= image.size.area {
            onDecode()
            return try await pool.run { () throws -> PixelBuffer in try image.proxy(longSide: longSide) }
        }
        let source = try await baseTask().value
        return try await pool.run { () throws -> PixelBuffer in
            try StepClock.time("proxy") { wanted == source.size ? try source.pixels() : try source.resized(to: wanted).pixels() }
        }
    }

    /// The crop rendered from the base, or nil when the base has too few pixels for the output
    /// (the caller then renders from the file).
    func render(_ plan: CropPlan, settings: EncodeSettings, transform: PixelTransform? = nil) async throws -> Data? {
        let sx = Double(baseSize.width) / Double(image.size.width), sy = Double(baseSize.height) / Double(image.size.height)
        // The crop in base pixels, rounded outwards by no more than the rounding needs.
        let x = Int((Double(plan.crop.x) * sx).rounded()), y = Int((Double(plan.crop.y) * sy).rounded())
        let width = min(baseSize.width - x, max(1, Int((Double(plan.crop.width) * sx).rounded())))
        let height = min(baseSize.height - y, max(1, Int((Double(plan.crop.height) * sy).rounded())))
        let area = PixelRect(x: x, y: y, width: width, height: height)
        // Enough pixels: the base is the whole image, or its crop is at least the output's size.
        let whole = baseSize == image.size
        guard area.isInside(baseSize), whole || (width >= plan.outputSize.width && height >= plan.outputSize.height) else {
            return nil
        }
        let source = try await baseTask().value
        let output = plan.outputSize
        return try await pool.run { () throws -> Data in
            let cropped = try source.cropped(area, to: output)
            return try (transform.map { try $0(cropped) } ?? cropped).encode(settings)
        }
    }

    private func baseTask() -> Task<RenderedImage, any Error> {
        base.withLock { base in
            if let base { return base }
            let (image, pool, size, onDecode) = (self.image, self.pool, self.baseSize, self.onDecode)
            let task = Task {
                onDecode()
                return try await pool.run { () throws -> RenderedImage in try image.decode(width: size.width, height: size.height) }
            }
            base = task
            return task
        }
    }
}
