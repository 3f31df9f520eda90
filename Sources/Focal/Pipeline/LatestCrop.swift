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
        var request: Request?
    }
    private struct Request: Equatable {
        let target: CropTarget
        let options: FocalOptions
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

    /// Crops to `target`, cancelling the request in progress, if any. A request equal to the one
    /// in progress (a layout pass repeating the same frame) joins its work instead of restarting
    /// it; the earlier call then throws `CancellationError` when that work finishes.
    /// - Parameters:
    ///   - target: The frame.
    ///   - options: Crop, detection, encoding and fallback options; default `.default`.
    /// - Throws: `CancellationError` when a newer request came before this one finished, or
    ///   what the pipeline throws.
    public func crop(to target: CropTarget, options: FocalOptions = .default) async throws -> CropResult {
        let (pipeline, input) = (self.pipeline, self.input)
        let request = Request(target: target, options: options)
        let (generation, task) = state.withLock { state in
            state.generation += 1
            if let task = state.task, state.request == request { return (state.generation, task) }
            state.task?.cancel()
            let task = Task { try await pipeline.crop(input, to: target, options: options) }
            state.task = task
            state.request = request
            return (state.generation, task)
        }
        let result = try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            // Stop the work only when no newer request shares it.
            if state.withLock({ $0.generation == generation }) { task.cancel() }
        }
        // Only the newest request may deliver: an older one finishing late is dropped.
        try state.withLock { state in
            guard state.generation == generation else { throw CancellationError() }
            state.task = nil
            state.request = nil
        }
        return result
    }

    /// Requests and cancellations so far (for tests).
    var requestCount: UInt64 { state.withLock { $0.generation } }

    /// Cancels the request in progress, if any; it throws `CancellationError`.
    public func cancel() {
        state.withLock { state in
            state.task?.cancel()
            state.generation += 1
            state.task = nil
            state.request = nil
        }
    }
}
