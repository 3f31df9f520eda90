internal import CFocalVips
import FocalCore
internal import FocalRuntime

/// libvips start-up and settings, shared by the whole process.
public enum Vips {
    /// Starts libvips once; later calls are free.
    /// - Throws: `ImagingError` with code `internal.failure` when libvips cannot start.
    public static func start() throws(ImagingError) {
        let (status, text) = withErrorText { focal_vips_init($0, $1) }
        if status != FOCAL_VIPS_OK {
            throw ImagingError(.internalFailure, "the image library could not start", cause: text)
        }
    }

    /// Sets the threads one libvips pipeline may use and the size of its operation cache.
    /// - Parameters:
    ///   - threadsPerPipeline: Threads inside one decode or encode; default 1 (parallelism comes
    ///     from running images side by side).
    ///   - cachedOperations: Operations libvips may keep; default 0 (off).
    public static func configure(threadsPerPipeline: Int = 1, cachedOperations: Int = 0) throws(ImagingError) {
        try start()
        focal_vips_set_concurrency(Int32(clamping: threadsPerPipeline))
        focal_vips_set_cache_max(Int32(clamping: cachedOperations))
    }

    /// Turns libvips's leak tracking on or off (for tests). Turn it on before any image exists,
    /// or start the process with `VIPS_LEAK=1`: libvips aborts when an image made before tracking
    /// began is freed while tracking is on.
    package static func setLeakTracking(_ on: Bool) { focal_vips_leak_set(on ? 1 : 0) }
    /// The number of libvips objects alive now.
    package static var objectsAlive: Int { Int(focal_vips_objects_alive()) }
    /// The number of pixel buffers libvips holds now.
    package static var trackedAllocations: Int { Int(focal_vips_tracked_allocs()) }
}
