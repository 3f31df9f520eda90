import FocalCore
import FocalImaging
import Foundation
import Synchronization

extension FocalPipeline {
    /// Renders and encodes every frame of an animated plan (`CropPlan.frames`), in one pass over
    /// the file: each frame cut from its own crop and resized to the output, `transform` applied to
    /// it (given the frame's index and what `finding` found to hide there), mirrored, then all
    /// encoded with their delays and loop count. The output frames are held until they are
    /// encoded: their bytes (at `frameSize` each, when `transform` makes them larger than the
    /// output, as `fill(…)` does) are reserved on the job's memory budget first.
    ///
    /// With `finding` (a redaction), each frame is decoded whole once, searched on a copy of at
    /// most `DetectMotion.detectionLongSide` and cut from the same decode; each frame then hides
    /// what was found in it and in the frames on either side (a face the detector misses in one
    /// frame of a run is still hidden there).
    /// - Throws: `ImagingError` (`input.corrupt` for a broken frame, `output.encode_failed`),
    ///   `LimitExceeded` (`input.timeout`), `NativeWorkPool.Overloaded`, and what `finding` throws.
    func renderAnimation(
        _ image: SourceImage, animation: Animation, plan: CropPlan, frames: [FrameCrop], frameSize: PixelSize? = nil, settings: EncodeSettings,
        finding: (@Sendable (Int, WorkingCopy) async throws -> [Box])? = nil,
        transform: (@Sendable (Int, [Box], RenderedImage) throws -> RenderedImage)?
    ) async throws -> Data {
        let output = plan.outputSize
        let each = max(output.area, frameSize?.area ?? 0)
        let (held, overflow) = frames.count.multipliedReportingOverflow(by: each.multipliedReportingOverflow(by: 4).partialValue)
        // With a redaction, the cut frames and their changed copies are held at once.
        let (both, twice) = held.multipliedReportingOverflow(by: finding == nil ? 1 : 2)
        try Admission.reserve(overflow || twice ? Int.max : both)
        counters.withLock { $0.renders += 1 }
        guard let finding else {
            return try await pool.run { () throws -> Data in
                let reader = try image.frames(of: animation)
                var rendered: [RenderedImage] = []
                rendered.reserveCapacity(frames.count)
                for (index, frame) in frames.enumerated() {
                    var image = try reader.frame(index, crop: frame.crop, to: output)
                    if let transform { image = try transform(index, [], image) }
                    rendered.append(try image.flipped(settings.flip))
                }
                return try RenderedImage.encodeAnimation(
                    rendered, delays: frames.map(\.delay), loop: animation.loop, settings: settings, deadline: image.deadline)
            }
        }
        let reader = try await pool.run { try image.frames(of: animation) }
        let canvas = animation.canvas
        let whole = PixelRect(x: 0, y: 0, width: canvas.width, height: canvas.height)
        let searched = canvas.fitting(longSide: min(max(canvas.width, canvas.height), DetectMotion.detectionLongSide))
        var cut: [RenderedImage] = [], found: [[Box]] = []
        cut.reserveCapacity(frames.count)
        for (index, frame) in frames.enumerated() {
            try Task.checkCancellation()
            let (decoded, copy) = try await pool.run { () throws -> (RenderedImage, RenderedImage) in
                let decoded = try reader.frame(index, crop: whole, to: canvas)
                return (try decoded.cropped(frame.crop, to: output), searched == canvas ? decoded : try decoded.resized(to: searched))
            }
            counters.withLock { $0.proxyDecodes += 1 }
            cut.append(decoded)
            // Found in pixels of the canvas (the image's size), whatever the copy's.
            found.append(try await finding(index, WorkingCopy(image: image, frame: copy, pool: pool)))
        }
        let hidden = found.indices.map { i in found[max(0, i - 1)...min(found.count - 1, i + 1)].flatMap { $0 } }
        let frozen = cut
        return try await pool.run { () throws -> Data in
            var rendered: [RenderedImage] = []
            rendered.reserveCapacity(frames.count)
            for (index, image) in frozen.enumerated() {
                let changed = try transform?(index, hidden[index], image) ?? image
                rendered.append(try changed.flipped(settings.flip))
            }
            return try RenderedImage.encodeAnimation(
                rendered, delays: frames.map(\.delay), loop: animation.loop, settings: settings, deadline: image.deadline)
        }
    }
}
