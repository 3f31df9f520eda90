internal import CFocalVips
public import FocalCore
public import FocalRuntime
public import Foundation

/// An animation's frames, decoded one after another, once: each frame is asked for in increasing
/// order (the file is read top to bottom, so memory holds a frame at a time, not the animation).
/// Used by one task at a time.
public final class AnimationFrames: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The animation being read.
    public let animation: Animation
    private let name: String
    private let deadline: Deadline

    init(handle: OpaquePointer, animation: Animation, name: String, deadline: Deadline) {
        self.handle = handle
        self.animation = animation
        self.name = name
        self.deadline = deadline
    }

    deinit { focal_vips_frames_free(handle) }

    /// Decodes frame `index`, crops `crop` of its canvas and resizes it to exactly `output`.
    /// - Throws: `ImagingError` (`input.corrupt` for a broken frame; `internal.failure` for a frame
    ///   asked out of order or a crop outside the canvas) or `LimitExceeded` (`input.timeout`).
    public func frame(_ index: Int, crop: PixelRect, to output: PixelSize) throws -> RenderedImage {
        try deadline.check(source: name)
        guard crop.isInside(animation.canvas), let i = Int32(exactly: index), let x = Int32(exactly: crop.x),
            let y = Int32(exactly: crop.y), let w = Int32(exactly: crop.width), let h = Int32(exactly: crop.height),
            let ow = Int32(exactly: output.width), let oh = Int32(exactly: output.height), ow > 0, oh > 0
        else {
            throw ImagingError(.internalFailure, "frame \(index) crop \(crop) to \(output) is outside the canvas of \(animation.canvas)", source: name)
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText {
            focal_vips_frames_render(handle, i, x, y, w, h, ow, oh, deadline.millisecondsLeft, &out, $0, $1)
        }
        guard status == FOCAL_VIPS_OK, let out else {
            if status == FOCAL_VIPS_ERR_CORRUPT {
                throw ImagingError(.inputCorrupt, "frame \(index + 1) of the animation is truncated or corrupt", source: name, cause: text)
            }
            throw SourceImage.error(status, text, name: name)
        }
        return RenderedImage(handle: out)
    }
}

extension SourceImage {
    /// What the header says of the animation, or nil for a still image: one frame, a format that
    /// does not animate (only GIF and WebP do), or frames of different sizes. An animation with an
    /// EXIF orientation other than 1 counts as still (its first frame is used, oriented).
    /// - Throws: `ImagingError` (`input.corrupt`, also for a GIF cut off or garbled after some of
    ///   its frames) naming this image.
    public func animation() throws -> Animation? {
        guard pages > 1, format == "gif" || format == "webp", orientation == 1 else { return nil }
        var info = focal_vips_animation()
        var delays = [Int32](repeating: -1, count: pages)
        // It rewinds the source, as every decode does: decodes of one source take turns.
        lock.lock()
        let (status, text) = withErrorText { err, len in
            delays.withUnsafeMutableBufferPointer { buffer in
                focal_vips_animation_info(handle, &info, buffer.baseAddress, Int32(clamping: buffer.count), err, len)
            }
        }
        lock.unlock()
        guard status == FOCAL_VIPS_OK else { throw Self.error(status, text, name: name, signature: format) }
        // libnsgif shows the frames before a damaged block as if they were all: a file whose blocks
        // are not whole, or hold more frames than it read, is damaged.
        if let layout = gifLayout, !layout.intact || layout.frames != Int(info.frames) {
            throw ImagingError(
                .inputCorrupt, "the GIF is cut off or garbled after frame \(min(layout.frames, Int(info.frames)))", source: name,
                cause: "\(layout.frames) whole frames in the file, \(info.frames) decodable")
        }
        let canvas = PixelSize(width: Int(info.width), height: Int(info.frame_height))
        guard info.frames > 1, canvas == size else { return nil }
        return Animation(frames: Int(info.frames), canvas: canvas, delays: delays.map { Int($0) }, loop: Int(info.loop))
    }

    /// Starts decoding the frames of `animation` (from `animation()`), within this image's deadline.
    /// - Throws: `ImagingError` (`input.corrupt`) naming this image.
    public func frames(of animation: Animation) throws -> AnimationFrames {
        guard let count = Int32(exactly: animation.frames) else {
            throw ImagingError(.internalFailure, "\(animation.frames) frames is out of range", source: name)
        }
        var out: OpaquePointer?
        let (status, text) = withErrorText { focal_vips_frames_open(handle, count, &out, $0, $1) }
        guard status == FOCAL_VIPS_OK, let out else { throw Self.error(status, text, name: name, signature: format) }
        return AnimationFrames(handle: out, animation: animation, name: name, deadline: deadline)
    }
}

extension RenderedImage {
    /// Encodes frames of one size as one animation.
    /// - Parameters:
    ///   - frames: The frames, in order.
    ///   - delays: Milliseconds per frame, one per frame.
    ///   - loop: Plays; 0 for ever.
    ///   - settings: A format that animates (`FormatDescriptor.animates`), its quality.
    ///   - deadline: When encoding must be done.
    /// - Throws: `ImagingError` (`output.encode_failed`) or `LimitExceeded` (`input.timeout`).
    public static func encodeAnimation(
        _ frames: [RenderedImage], delays: [Int], loop: Int, settings: EncodeSettings, deadline: Deadline
    ) throws -> Data {
        let format = settings.format
        guard let first = frames.first, frames.count == delays.count, format.descriptor.animates,
            let count = Int32(exactly: frames.count)
        else {
            throw ImagingError(.internalFailure, "an animation needs frames, one delay each, and a format that animates")
        }
        try deadline.check(source: "animation")
        let size = first.size
        guard format.holds(size) else {
            throw ImagingError(.outputEncodeFailed, "an output of \(size) is larger than \(format.rawValue.uppercased()) can hold")
        }
        let delays = delays.map { Int32(clamping: max(0, $0)) }
        var memory: UnsafeMutableRawPointer? = nil
        var length = 0
        let handles: [OpaquePointer?] = frames.map { $0.handle }
        let (status, text) = withErrorText { err, errlen in
            settings.withSaver(for: size) { saver in
                handles.withUnsafeBufferPointer { list in
                    delays.withUnsafeBufferPointer { times in
                        focal_vips_encode_animation(
                            list.baseAddress, count, times.baseAddress, Int32(clamping: loop), saver, deadline.millisecondsLeft, &memory, &length,
                            err, errlen)
                    }
                }
            }
        }
        guard status == FOCAL_VIPS_OK, let memory else {
            if status == FOCAL_VIPS_ERR_TIMEOUT {
                throw LimitExceeded(.inputTimeout, limit: "timeout", allowed: "the input's deadline", actual: "more")
            }
            throw ImagingError(.outputEncodeFailed, "the animation could not be encoded as \(format.rawValue.uppercased())", cause: text)
        }
        defer { focal_vips_free(memory) }
        let data = Data(bytes: memory, count: length)
        return format == .webp ? WebPMetadata.stripped(data) : data
    }
}
