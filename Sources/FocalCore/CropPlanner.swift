/// Decides where to crop: a pure function of the image size, the target, the subjects and the options.
///
/// The rules, in order: a manual override wins; with detection off or no usable subject the crop
/// is centred; otherwise subjects are taken by priority (faces, then cats and dogs, then people,
/// then saliency), the scheme picks among them, each is padded, and the crop of the target aspect
/// is centred on their union and shifted inside the image. When the union does not fit, the
/// placement that keeps the most subjects whole (weighted by size and confidence) is chosen, and a
/// face is never cut through its middle when some placement avoids it.
public enum CropPlanner {
    /// Plans a crop.
    /// - Parameters:
    ///   - imageSize: The oriented image size in pixels.
    ///   - target: The output size or aspect ratio.
    ///   - subjects: Everything detected, in pixels of the oriented image.
    ///   - options: Scheme, padding, zoom, override; defaults to `.default`.
    /// - Returns: The crop and what decided it.
    /// - Throws: `PlanningError` for an empty image or an invalid target or option.
    public static func plan(
        imageSize: PixelSize, target: CropTarget, subjects: [Subject], options: CropOptions = .default
    ) throws(PlanningError) -> CropPlan {
        guard imageSize.width > 0, imageSize.height > 0 else { throw PlanningError.emptyImage(imageSize) }
        try target.validate()
        try options.validate()
        let frame = CropFrame(imageSize: imageSize, target: target)
        let outputSize: PixelSize
        if case let .size(w, h) = target { outputSize = PixelSize(width: w, height: h) } else { outputSize = frame.fill }

        func make(_ crop: PixelRect, _ region: Box?, _ used: [Subject], _ strategy: CropStrategy) -> CropPlan {
            CropPlan(
                imageSize: imageSize, crop: crop, outputSize: target.isAspect ? crop.size : outputSize,
                region: region, subjects: used, strategy: strategy)
        }

        if let override = options.override {
            // A focus point takes the largest crop around it; a region takes the smallest crop
            // of the target aspect that holds it (never below the output size).
            let region: Box, zoom: Zoom
            switch override {
            case let .focus(x, y):
                let px = min(max(x, 0), Double(imageSize.width)), py = min(max(y, 0), Double(imageSize.height))
                (region, zoom) = (Box(x: px, y: py, width: 0, height: 0), .fill)
            case let .region(rect):
                (region, zoom) = (rect.box.clamped(to: imageSize), .subject(1))
            }
            let size = frame.size(toHold: region, zoom: zoom, minimum: outputSize)
            return make(frame.place(size: size, centredOn: region), region, [], .manual)
        }

        let chosen = options.detect ? prioritised(subjects, options: options) : []
        guard let kind = chosen.first?.kind else {
            return make(frame.place(size: frame.fill, centredOn: frame.imageBox), nil, [], .center)
        }
        let used = options.scheme.select(chosen)
        let padded = used.map {
            options.padding.apply(to: $0.box, headroom: $0.kind == .face ? options.faceHeadroom : 0).clamped(to: imageSize)
        }
        guard let region = padded.dropFirst().reduce(padded.first, { $0?.union($1) }) else {
            return make(frame.place(size: frame.fill, centredOn: frame.imageBox), nil, [], .center)
        }
        let size = frame.size(toHold: region, zoom: options.zoom, minimum: outputSize)
        var crop = frame.place(size: size, centredOn: region)
        if !crop.box.contains(region, tolerance: 0.5) && used.count > 1 {
            crop = PlacementSearch(frame: frame, size: size, subjects: used, padded: padded, region: region).best()
        }
        return make(crop, region, used, CropStrategy(kind))
    }

    /// The subjects of the highest-priority kind present, above their confidence threshold.
    static func prioritised(_ subjects: [Subject], options: CropOptions) -> [Subject] {
        let usable = subjects.filter {
            $0.box.width > 0 && $0.box.height > 0 && $0.confidence >= (options.minimumConfidence[$0.kind] ?? 0)
        }
        guard let top = usable.map(\.kind.priority).min() else { return [] }
        return usable.filter { $0.kind.priority == top }
    }
}

extension CropTarget {
    var isAspect: Bool {
        if case .aspect = self { true } else { false }
    }
}

extension CropPlanner {
    /// The largest crop of aspect `width`:`height` inside an image of `imageSize`.
    public static func fillSize(imageSize: PixelSize, aspect: (Int, Int)) -> PixelSize {
        CropFrame(imageSize: imageSize, target: .aspect(width: aspect.0, height: aspect.1)).fill
    }
}
