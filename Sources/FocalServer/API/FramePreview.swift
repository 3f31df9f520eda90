import Focal
import Foundation

/// A frame's crop as a tiny inline image (`data:image/webp;base64,…`, a few hundred bytes), for
/// a page to show, blurred by the browser's scaling, before the crop itself arrives: no request.
/// `POST /v1/plan` gives one per frame when asked (`"previews": true`); the markup helpers write
/// it in.
enum FramePreview {
    /// The long side of a preview, in pixels.
    static let longSide = 16
    /// The WebP quality of a preview: enough for colour and layout, not for detail.
    static let quality = 40

    /// The crop `crop` of `input` at `longSide` pixels as a data URI, or nil when it cannot be made.
    static func dataURI(of crop: PixelRect, in input: ImageInput, pipeline: FocalPipeline) async -> String? {
        guard crop.width > 0, crop.height > 0 else { return nil }
        let scale = Double(longSide) / Double(max(crop.width, crop.height))
        let width = max(1, Int((Double(crop.width) * scale).rounded())), height = max(1, Int((Double(crop.height) * scale).rounded()))
        var options = FocalOptions()
        // Exactly the frame's crop: its region as the bounds, no detection, no saved crop.
        options.crop.detect = false
        options.crop.bounds = crop
        options.format = .webp
        options.quality = quality
        guard let result = try? await pipeline.crop(input, to: .size(width: width, height: height), options: options) else { return nil }
        return "data:image/webp;base64," + result.data.base64EncodedString()
    }
}
