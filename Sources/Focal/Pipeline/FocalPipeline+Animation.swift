import FocalCore
import FocalImaging
import Foundation
import Synchronization

extension FocalPipeline {
    /// Renders and encodes every frame of an animated plan (`CropPlan.frames`), in one pass over
    /// the file: each frame cut from its own crop and resized to the output, `transform` applied to
    /// it (given the frame's index), mirrored, then all encoded with their delays and loop count.
    /// The output frames are held until they are encoded: their bytes (at `frameSize` each, when
    /// `transform` makes them larger than the output, as `fill(…)` does) are reserved on the job's
    /// memory budget first.
    /// - Throws: `ImagingError` (`input.corrupt` for a broken frame, `output.encode_failed`),
    ///   `LimitExceeded` (`input.timeout`), `NativeWorkPool.Overloaded`.
    func renderAnimation(
        _ image: SourceImage, animation: Animation, plan: CropPlan, frames: [FrameCrop], frameSize: PixelSize? = nil, settings: EncodeSettings,
        transform: (@Sendable (Int, RenderedImage) throws -> RenderedImage)?
    ) async throws -> Data {
        let output = plan.outputSize
        let each = max(output.area, frameSize?.area ?? 0)
        let (held, overflow) = frames.count.multipliedReportingOverflow(by: each.multipliedReportingOverflow(by: 4).partialValue)
        try Admission.reserve(overflow ? Int.max : held)
        counters.withLock { $0.renders += 1 }
        return try await pool.run { () throws -> Data in
            let reader = try image.frames(of: animation)
            var rendered: [RenderedImage] = []
            rendered.reserveCapacity(frames.count)
            for (index, frame) in frames.enumerated() {
                var image = try reader.frame(index, crop: frame.crop, to: output)
                if let transform { image = try transform(index, image) }
                rendered.append(try image.flipped(settings.flip))
            }
            return try RenderedImage.encodeAnimation(
                rendered, delays: frames.map(\.delay), loop: animation.loop, settings: settings, deadline: image.deadline)
        }
    }
}
