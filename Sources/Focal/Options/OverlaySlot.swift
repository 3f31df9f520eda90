public import FocalImaging

/// One overlay the options lay on: where it lives in `FocalOptions`, named by its filter and its
/// place among the filter's overlays (`watermark`, then `watermark.2`…). The pipeline identifies,
/// opens and (under a redaction) searches each slot's image the same way (`LoadOverlays`,
/// `OpenOverlays`, `FindRedactions`), and a frame change lays it on; the doors resolve each slot's
/// source (`FocalOptions.overlays`). A new overlay is its option type (an `OverlayOption`), a
/// line in `slots(of:)` and its frame change.
public struct OverlaySlot: Sendable {
    /// The slot's name: its filter's name for the first of them (`watermark`, `frame`, `image`),
    /// then `.2`, `.3`… (`watermark.2`).
    public let name: String
    /// The slot's option in `options`, when they ask for it.
    let option: @Sendable (FocalOptions) -> (any OverlayOption)?
    /// Sets the slot's content ID in `options`.
    let setContentID: @Sendable (inout FocalOptions, String?) -> Void

    /// The filters that lay an overlay.
    public static let filters = ["watermark", "frame", "image"]

    /// The most overlays of one filter a request lays (each is one more image read and laid).
    public static let maxPerFilter = 8

    /// The name of the overlay at `index` (from 0) among `filter`'s.
    public static func name(_ filter: String, _ index: Int) -> String { index == 0 ? filter : "\(filter).\(index + 1)" }

    /// The slots `options` fill, in the order their images are read and laid.
    static func slots(of options: FocalOptions) -> [OverlaySlot] {
        let watermarks = options.watermarks.indices.map { index in
            OverlaySlot(
                name: name("watermark", index), option: { $0.watermarks.indices.contains(index) ? $0.watermarks[index] : nil },
                setContentID: { if $0.watermarks.indices.contains(index) { $0.watermarks[index].contentID = $1 } })
        }
        let frame = options.frame == nil ? [] : [OverlaySlot(name: "frame", option: { $0.frame }, setContentID: { $0.frame?.contentID = $1 })]
        let images = options.imageOverlays.indices.map { index in
            OverlaySlot(
                name: name("image", index), option: { $0.imageOverlays.indices.contains(index) ? $0.imageOverlays[index] : nil },
                setContentID: { if $0.imageOverlays.indices.contains(index) { $0.imageOverlays[index].contentID = $1 } })
        }
        return watermarks + frame + images
    }
}

extension FocalOptions {
    /// The overlays these options ask for: each slot's name and its image as the request names it,
    /// for a door to resolve into `overlayInputs`.
    public var overlays: [(slot: String, source: String)] {
        OverlaySlot.slots(of: self).compactMap { slot in slot.option(self).map { (slot.name, $0.source) } }
    }
}
