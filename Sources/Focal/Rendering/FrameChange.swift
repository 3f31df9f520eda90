import FocalCore
import FocalImaging

/// One change to every rendered frame of a crop, named, in one ordered list
/// (`FocalPipeline.frameChanges`): the crop is rendered, then each change the options ask for
/// changes it in list order, then it is encoded.
///
/// A change is readied once per job (`ready`), where it may decode what it lays on; the ready
/// change then runs on each frame (one for a still, every frame of an animation). Adding one (a
/// new overlay, a new painting) is a type that conforms, in a file of its own, and its line in the
/// list.
protocol FrameChange: Sendable {
    /// Its name, for errors and the design notes.
    var name: String { get }
    /// The change readied for `job`'s `plan`, or nil when the job's options ask nothing of it.
    /// - Throws: What readying it costs or finds wrong (an overlay past the output limits, a
    ///   redaction whose regions were not looked for).
    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange?
}

/// A frame change readied for one job.
struct ReadyFrameChange: Sendable {
    /// Whether it changes a frame only beside another change: mirroring alone is left to the
    /// encoder, which mirrors as it writes.
    var onlyBesideOthers = false
    /// The frame's size after the change, from its size before (`fill` and `frame` grow it).
    var resize: @Sendable (PixelSize) -> PixelSize = { $0 }
    /// Changes one frame.
    let apply: @Sendable (RenderedImage, FrameContext) throws -> RenderedImage
}

/// What a change knows of the frame it changes.
struct FrameContext: Sendable {
    /// The frame's index: 0 for a still.
    let index: Int
    /// The crop the frame was cut from, in pixels of the image.
    let crop: PixelRect
    /// The plan's output size, before any change.
    let output: PixelSize
    /// What a redaction hides in the frame, in pixels of the image.
    let hidden: [Box]
}

extension FocalPipeline {
    /// The changes to each rendered frame, in the order they apply: what a redaction hides, then
    /// what the detectors saw (`draw_detections()`), then the mirroring (thumbor mirrors before
    /// its filters), the effects in the order given, the watermark, imagor's `image(…)`,
    /// `fill(…)`'s box and `frame(…)`'s nine-patch.
    static let frameChanges: [any FrameChange] = [
        HideRedactedRegions(), DrawDetections(), MirrorFrame(), ApplyEffects(), LayWatermark(), LayImage(), FillBox(), FrameWithNinePatch(),
    ]

    /// The frame changes `job` asks for, readied in list order; empty when none changes a frame
    /// (mirroring alone is the encoder's).
    func readyFrameChanges(for job: CropJob, plan: CropPlan) async throws -> [ReadyFrameChange] {
        var ready: [ReadyFrameChange] = []
        for change in Self.frameChanges {
            if let readied = try await change.ready(for: job, plan: plan, in: self) { ready.append(readied) }
        }
        return ready.allSatisfy(\.onlyBesideOthers) ? [] : ready
    }
}

extension [ReadyFrameChange] {
    /// The frame's size after every change, from the plan's output size.
    func canvas(from output: PixelSize) -> PixelSize { reduce(output) { size, change in change.resize(size) } }

    /// Every change applied to one frame, in order; nil when there is none.
    var combined: (@Sendable (RenderedImage, FrameContext) throws -> RenderedImage)? {
        guard !isEmpty else { return nil }
        let changes = self
        return { image, context in try changes.reduce(image) { image, change in try change.apply(image, context) } }
    }
}
