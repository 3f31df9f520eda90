public import FocalImaging

/// One kind of overlay the options may lay on, by the filter's name: where it lives in
/// `FocalOptions`. The pipeline identifies, opens and (under a redaction) searches each slot's image
/// the same way (`LoadOverlays`, `OpenOverlays`, `FindRedactions`), and a frame change lays it on;
/// the doors resolve each slot's source (`FocalOptions.overlays`). A new overlay is its option
/// type (an `OverlayOption`), a line here and its frame change.
public struct OverlaySlot: Sendable {
    /// The filter's name: `watermark`, `frame`, `image`.
    public let name: String
    /// The slot's option in `options`, when they ask for it.
    let option: @Sendable (FocalOptions) -> (any OverlayOption)?
    /// Sets the slot's content ID in `options`.
    let setContentID: @Sendable (inout FocalOptions, String?) -> Void

    /// Every slot, in the order their images are read.
    public static let all: [OverlaySlot] = [
        OverlaySlot(name: "watermark", option: { $0.watermark }, setContentID: { $0.watermark?.contentID = $1 }),
        OverlaySlot(name: "frame", option: { $0.frame }, setContentID: { $0.frame?.contentID = $1 }),
        OverlaySlot(name: "image", option: { $0.imageOverlay }, setContentID: { $0.imageOverlay?.contentID = $1 }),
    ]
}

extension FocalOptions {
    /// The overlays these options ask for: each slot's name and its image as the request names it,
    /// for a door to resolve into `overlayInputs`.
    public var overlays: [(slot: String, source: String)] {
        OverlaySlot.all.compactMap { slot in slot.option(self).map { (slot.name, $0.source) } }
    }
}
