import Synchronization

/// Keeps one image's crop current while its frame or options change, as an image view does:
/// each request cancels the one before it, and no result is returned after a newer request's.
///
/// ```swift
/// let avatar = LatestCrop(pipeline: pipeline, input: .url(photoURL))
/// // On every layout change:
/// let result = try await avatar.crop(to: .size(width: w, height: h))
/// ```
public final class LatestCrop: Sendable {
    /// The pipeline the crops run on.
    public let pipeline: FocalPipeline
    /// The image being cropped.
    public let input: ImageInput

    private struct State {
        var generation: UInt64 = 0
        var task: Task<CropResult, any Error>?
    }
    private let state = Mutex(State())

    /// Creates a holder for one image.
    /// - Parameters:
    ///   - pipeline: The pipeline to crop with.
    ///   - input: The image.
    public init(pipeline: FocalPipeline, input: ImageInput) {
        self.pipeline = pipeline
        self.input = input
    }

    /// Crops to `target`, cancelling the request in progress, if any.
    /// - Parameters:
    ///   - target: The frame.
    ///   - options: Crop, detection, encoding and fallback options; default `.default`.
    /// - Throws: `CancellationError` when a newer request came before this one finished, or
    ///   what the pipeline throws.
    public func crop(to target: CropTarget, options: FocalOptions = .default) async throws -> CropResult {
        let (pipeline, input) = (self.pipeline, self.input)
        let (generation, task) = state.withLock { state in
            state.task?.cancel()
            state.generation += 1
            let task = Task { try await pipeline.crop(input, to: target, options: options) }
            state.task = task
            return (state.generation, task)
        }
        let result = try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
        // Only the newest request may deliver: an older one finishing late is dropped.
        try state.withLock { state in
            guard state.generation == generation else { throw CancellationError() }
            state.task = nil
        }
        return result
    }

    /// Cancels the request in progress, if any; it throws `CancellationError`.
    public func cancel() {
        state.withLock { state in
            state.task?.cancel()
            state.generation += 1
            state.task = nil
        }
    }
}
