/// How a crop a person saved for an image decides a frame: the one rule every door uses (image
/// URLs, `meta/`, `/v1/plan`, the plan header), so that what is described is what is rendered.
///
/// - **Matching.** A saved crop applies to a frame whose aspect is within 1 % of its own; of
///   several, the nearest.
/// - **Applying.** The saved crop is the crop, scaled to the output, as long as the output needs no
///   more than `maxUpscale` of it. A larger output gets the smallest crop around the saved one that
///   needs no more: of the saved crop's aspect, centred on it, moved (not shrunk) to stay inside
///   the image; the whole image's largest crop of that aspect when even that is too small.
public enum SavedCropRule {
    /// How far a frame's aspect may be from a saved crop's: 1 %.
    public static let tolerance = 0.01

    /// Whether a saved crop of aspect ratio `saved` applies to a frame of ratio `frame`.
    public static func matches(saved: Double, frame: Double) -> Bool {
        saved.isFinite && frame.isFinite && frame > 0 && abs(saved - frame) <= tolerance * frame
    }

    /// The saved crop that applies to a frame of ratio `ratio`: the nearest within the tolerance.
    /// - Parameters:
    ///   - candidates: The crops saved for the image.
    ///   - ratio: The frame's aspect ratio (width over height).
    ///   - aspect: A candidate's aspect ratio.
    public static func match<T>(_ candidates: [T], ratio: Double, aspect: (T) -> Double) -> T? {
        candidates.filter { matches(saved: aspect($0), frame: ratio) }.min { abs(aspect($0) - ratio) < abs(aspect($1) - ratio) }
    }

    /// The crop to render for `target` from a saved crop: the saved crop itself, or, for an output
    /// that would need more than `maxUpscale` of it, the smallest crop around it that needs no
    /// more (see the type's notes).
    /// - Parameters:
    ///   - saved: The saved crop, inside the image.
    ///   - target: The frame; an aspect target never needs an upscale.
    ///   - imageSize: The (upright) image's size.
    ///   - maxUpscale: The largest enlargement allowed (`ImageLimits.maxUpscale`).
    public static func crop(for saved: PixelRect, target: CropTarget, imageSize: PixelSize, maxUpscale: Double) -> PixelRect {
        guard case let .size(width, height) = target, saved.width > 0, saved.height > 0, maxUpscale > 0 else { return saved }
        let needed = max(Double(width) / Double(saved.width), Double(height) / Double(saved.height))
        guard needed > maxUpscale else { return saved }
        // Grow about the centre, keeping the saved crop's aspect, until the output needs maxUpscale.
        let scale = needed / maxUpscale
        var w = Int(saturating: (Double(saved.width) * scale).rounded(.up))
        var h = Int(saturating: (Double(saved.height) * scale).rounded(.up))
        if w > imageSize.width || h > imageSize.height {
            // Even the image is too small: its largest crop of the saved aspect (the planner's own).
            let fill = CropPlanner.fillSize(imageSize: imageSize, aspect: (saved.width, saved.height))
            (w, h) = (fill.width, fill.height)
        }
        let centreX = Double(saved.x) + Double(saved.width) / 2, centreY = Double(saved.y) + Double(saved.height) / 2
        let x = min(max(0, Int(saturating: (centreX - Double(w) / 2).rounded())), imageSize.width - w)
        let y = min(max(0, Int(saturating: (centreY - Double(h) / 2).rounded())), imageSize.height - h)
        return PixelRect(x: x, y: y, width: w, height: h)
    }

    /// Crop options that make the planner render the saved crop for `target`: the saved crop as
    /// the override, and the crop `crop(for:target:imageSize:maxUpscale:)` gives as the bounds
    /// (unless the options already bound the crop: a manual crop of the source).
    public static func applied(
        _ saved: PixelRect, to options: CropOptions, target: CropTarget, imageSize: PixelSize, maxUpscale: Double
    ) -> CropOptions {
        var options = options
        options.override = .region(saved)
        if options.bounds == nil { options.bounds = crop(for: saved, target: target, imageSize: imageSize, maxUpscale: maxUpscale) }
        return options
    }
}
