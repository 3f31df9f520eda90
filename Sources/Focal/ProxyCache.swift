import FocalImaging
import FocalCore
import FocalRuntime
import Synchronization

/// The copies of one image that its detectors ask for. The image is decoded once, with
/// shrink-on-load, at a base size that covers every built-in detector; other sizes are resized
/// from that copy in memory, and only a request larger than it decodes again.
final class ProxyCache: Sendable {
    private let image: SourceImage
    private let pool: NativeWorkPool
    private let baseSize: PixelSize
    private let base = Mutex<Task<PixelBuffer, any Error>?>(nil)
    private let onDecode: @Sendable () -> Void

    init(image: SourceImage, baseLongSide: Int, pool: NativeWorkPool, onDecode: @escaping @Sendable () -> Void) {
        self.image = image
        self.pool = pool
        self.onDecode = onDecode
        baseSize = image.size.fitting(longSide: baseLongSide)
    }

    func pixels(longSide: Int, enlarge: Bool) async throws -> PixelBuffer {
        let wanted = image.size.fitting(longSide: longSide, enlarge: enlarge)
        let (image, pool) = (self.image, self.pool)
        if max(wanted.width, wanted.height) > max(baseSize.width, baseSize.height) && wanted.area <= image.size.area {
            onDecode()
            return try await pool.run { () throws -> PixelBuffer in try image.proxy(longSide: longSide) }
        }
        let source = try await baseTask().value
        if wanted == source.size { return source }
        return try await pool.run { () throws -> PixelBuffer in
            try RenderedImage(pixels: source).resized(to: wanted).pixels()
        }
    }

    private func baseTask() -> Task<PixelBuffer, any Error> {
        base.withLock { base in
            if let base { return base }
            let (image, pool, size, onDecode) = (self.image, self.pool, self.baseSize, self.onDecode)
            let task = Task {
                onDecode()
                return try await pool.run { () throws -> PixelBuffer in
                    try image.pixels(width: size.width, height: size.height)
                }
            }
            base = task
            return task
        }
    }
}
