import FocalCore
import FocalImaging

/// The identities of the images laid over the output, the watermark's (`watermark(…)`) and the
/// frame's nine-patch (`frame(…)`), each as the door resolved it: each content's SHA-256 joins
/// the request's options, so that the result key names their bytes, not only their names. Runs
/// before the result is looked up, and reads an overlay only when its identity is not known
/// (`FocalPipeline.overlayIdentity(of:)`): a cached crop is a hit with no overlay read, and is
/// served while a URL overlay's host is down. `OpenOverlays` opens the ones a render needs.
struct LoadOverlays: CropStep {
    let name = "load-overlays"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, !job.overlaysIdentified else { return }
        for slot in OverlaySlot.slots(of: job.options) {
            guard let overlay = slot.option(job.options) else { continue }
            let input = try Self.input(job.options.overlayInputs[slot.name], named: overlay.source, for: slot.name)
            let (contentID, image) = try await pipeline.overlayIdentity(of: input)
            slot.setContentID(&job.options, contentID)
            job.overlayImages[slot.name] = image
        }
        job.overlaysIdentified = true
    }

    /// The overlay's input, or `request.invalid` when the door could resolve none.
    static func input(_ input: ImageInput?, named name: String, for filter: String) throws -> ImageInput {
        guard let input else { throw PlanningError.invalidOption("\(filter) '\(name)' names no image this door can read") }
        return input
    }
}

/// The overlays' images for a render that was not cached, each read now unless identifying it
/// read it already (`LoadOverlays`), and identified from the bytes read, so that the result is
/// stored under the overlay it shows (one changed since it was identified included).
struct OpenOverlays: CropStep {
    let name = "open-overlays"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil else { return }
        // Identified again from the bytes read: the result is stored under what was rendered.
        for slot in OverlaySlot.slots(of: job.options) where job.overlayImages[slot.name] == nil {
            guard let overlay = slot.option(job.options) else { continue }
            let input = try LoadOverlays.input(job.options.overlayInputs[slot.name], named: overlay.source, for: slot.name)
            let (contentID, image) = try await pipeline.openOverlay(input)
            slot.setContentID(&job.options, contentID)
            job.overlayImages[slot.name] = image
        }
    }
}
