/// Decides where to crop: a pure function of the image size, the target, the subjects and the options.
///
/// The rules, in order: a manual override wins; with detection off or no usable subject the crop
/// is centred; otherwise subjects are taken by priority (faces, then cats and dogs, then people,
/// then saliency), the scheme picks among them, each is padded, and the crop of the target aspect
/// is centred on their union and shifted inside the image. When the union does not fit, the
/// placement that keeps the most subjects whole (weighted by size and confidence) is chosen, and a
/// face is never cut through its middle when some placement avoids it.
public enum CropPlanner {
    /// The most subjects one plan accepts; more is an error (`request.invalid`).
    public static let maxSubjects = 10_000
    /// The longest image side the planner accepts, in pixels.
    public static let maxImageSide = 1 << 30

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
        guard imageSize.width <= maxImageSide, imageSize.height <= maxImageSide else {
            throw PlanningError.invalidOption("image size \(imageSize) is beyond the \(maxImageSide) pixels a side the planner handles")
        }
        try target.validate()
        try options.validate()
        guard subjects.count <= maxSubjects else {
            throw PlanningError.invalidOption("\(subjects.count) subjects given; at most \(maxSubjects) are accepted")
        }
        // Boxes or confidences that are not finite numbers cannot be placed: they are dropped.
        let subjects = subjects.filter(\.isFinite)
        if let bounds = options.bounds {
            return try planInside(bounds, imageSize: imageSize, target: target, subjects: subjects, options: options)
        }
        let frame = CropFrame(imageSize: imageSize, target: target)
        // The smallest crop zoom may reach: the output size, or a single pixel for an aspect
        // (whose crop is its own output).
        let minimum: PixelSize
        if case let .size(w, h) = target { minimum = PixelSize(width: w, height: h) } else { minimum = PixelSize(width: 1, height: 1) }

        func make(_ crop: PixelRect, _ region: Box?, _ used: [Subject], _ strategy: CropStrategy) -> CropPlan {
            CropPlan(
                imageSize: imageSize, crop: crop, outputSize: target.isAspect ? crop.size : minimum,
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
            case let .relativeFocus(fx, fy):
                let px = min(max(fx, 0), 1) * Double(imageSize.width), py = min(max(fy, 0), 1) * Double(imageSize.height)
                (region, zoom) = (Box(x: px, y: py, width: 0, height: 0), .fill)
            case let .relativeRegion(fractions):
                let box = fractions.scaled(x: Double(imageSize.width), y: Double(imageSize.height)).clamped(to: imageSize)
                (region, zoom) = box.width > 0 && box.height > 0 ? (box, .subject(1)) : (box, .fill)
            }
            let size = frame.size(toHold: region, zoom: zoom, minimum: minimum)
            return make(frame.place(size: size, centredOn: region), region, [], .manual)
        }

        let chosen = options.detect ? SubjectSelection.choose(subjects, minimumConfidence: options.minimumConfidence, preference: options.kinds) : []
        guard let kind = chosen.first?.kind else {
            return make(frame.place(size: frame.fill, centredOn: frame.imageBox), nil, [], .center)
        }
        let used = options.scheme.select(chosen)
        let padded = pad(used, options: options, scale: 1, imageSize: imageSize)
        guard let region = union(padded) else {
            return make(frame.place(size: frame.fill, centredOn: frame.imageBox), nil, [], .center)
        }
        // A tight crop: the padded box of the kept subjects, at its own aspect.
        if let tight = options.tight, case let .size(w, h) = target {
            let (crop, output) = tight.frame(for: region, asked: PixelSize(width: w, height: h), imageSize: imageSize)
            var plan = CropPlan(imageSize: imageSize, crop: crop, outputSize: output, region: region, subjects: used, strategy: CropStrategy(kind))
            plan.placement = "tight: \(tight.rawValue) \(tight == .width ? w : h)"
            return plan
        }
        let size = frame.size(toHold: region, zoom: options.zoom, minimum: minimum)
        // When the padded region does not fit, shrink the padding (each axis on its own) before
        // giving up any subject: the subjects matter more than the room around them.
        var fitted = region
        var fits = (x: false, y: false)
        for scale in [1.0, 0.75, 0.5, 0.25, 0] {
            guard let u = union(pad(used, options: options, scale: scale, imageSize: imageSize)) else { break }
            if !fits.x && (u.width <= Double(size.width) || scale == 0) {
                (fitted.x, fitted.width, fits.x) = (u.x, u.width, u.width <= Double(size.width))
            }
            if !fits.y && (u.height <= Double(size.height) || scale == 0) {
                (fitted.y, fitted.height, fits.y) = (u.y, u.height, u.height <= Double(size.height))
            }
        }
        let crop: PixelRect
        var placed: String? = nil
        if fits.x && fits.y, let placement = options.placement {
            (crop, placed) = placement.place(size: size, holding: fitted, subjects: used, frame: frame)
        } else if fits.x && fits.y {
            crop = frame.place(size: size, centredOn: fitted)
        } else if used.count > 1 {
            // The search is quadratic in candidates times subjects: a crowd is searched over
            // its heaviest members (size × confidence × the kind's weight), the rest only shape
            // the region.
            let weight = { (subject: Subject) in options.kinds?.weight(of: subject.kind) ?? 1 }
            let heaviest = Array(zip(used, padded).enumerated().sorted {
                let (a, b) = ($0.element.0, $1.element.0)
                let (wa, wb) = (a.box.area.squareRoot() * a.confidence * weight(a), b.box.area.squareRoot() * b.confidence * weight(b))
                return wa != wb ? wa > wb : $0.offset < $1.offset
            }.prefix(PlacementSearch.maxSubjects).sorted { $0.offset < $1.offset }.map(\.element))
            crop = PlacementSearch(
                frame: frame, size: size, subjects: heaviest.map(\.0), padded: heaviest.map(\.1), region: region,
                kindWeights: heaviest.map { weight($0.0) }
            ).best()
        } else {
            crop = placeOversized(used[0], in: fitted, size: size, frame: frame, others: subjects)
        }
        var plan = make(crop, region, used, CropStrategy(kind))
        plan.placement = placed ?? options.placement.map { _ in "whole: the subjects fill the crop" }
        return plan
    }

    /// Plans inside `bounds` as if it were the whole image, then maps the plan back: subjects are
    /// clipped to it (those left empty dropped), overrides moved into its pixels.
    static func planInside(
        _ bounds: PixelRect, imageSize: PixelSize, target: CropTarget, subjects: [Subject], options: CropOptions
    ) throws(PlanningError) -> CropPlan {
        let clipped = bounds.box.clamped(to: imageSize)
        // Clipped to the image, and each coordinate kept inside it before it is converted.
        let (xs, ys) = (0...imageSize.width, 0...imageSize.height)
        let x = Int(rounding: clipped.x.rounded(.down), within: xs), y = Int(rounding: clipped.y.rounded(.down), within: ys)
        let rect = PixelRect(
            x: x, y: y, width: Int(rounding: clipped.maxX.rounded(.down), within: xs) - x,
            height: Int(rounding: clipped.maxY.rounded(.down), within: ys) - y)
        guard rect.width > 0, rect.height > 0 else {
            throw PlanningError.invalidOption("crop bounds \(bounds) lie outside the image of \(imageSize)")
        }
        let dx = Double(rect.x), dy = Double(rect.y)
        func inside(_ box: Box) -> Box { Box(x: box.x - dx, y: box.y - dy, width: box.width, height: box.height) }
        func outside(_ box: Box) -> Box { Box(x: box.x + dx, y: box.y + dy, width: box.width, height: box.height) }
        var local = options
        local.bounds = nil
        switch options.override {
        case let .focus(fx, fy)?: local.override = .focus(x: fx - dx, y: fy - dy)
        case let .region(r)?:
            // Through Doubles clipped to the image: an Int from a caller may be anything.
            let box = inside(r.box.clamped(to: imageSize))
            // Inside the image, and moved by at most its size: within ±its sides before conversion.
            let xs = -imageSize.width...imageSize.width, ys = -imageSize.height...imageSize.height
            let lx = Int(rounding: box.x.rounded(.down), within: xs), ly = Int(rounding: box.y.rounded(.down), within: ys)
            local.override = .region(PixelRect(
                x: lx, y: ly, width: max(1, Int(rounding: box.maxX.rounded(.up), within: xs) - lx),
                height: max(1, Int(rounding: box.maxY.rounded(.up), within: ys) - ly)))
        // Fractions are of the bounds, as a URL's alignment is of its manual crop.
        case .relativeFocus?, .relativeRegion?, nil: break
        }
        let moved = subjects.compactMap { subject -> Subject? in
            var s = subject
            s.box = inside(subject.box).clamped(to: rect.size)
            return s.box.area > 0 ? s : nil
        }
        var plan = try plan(imageSize: rect.size, target: target, subjects: moved, options: local)
        plan.imageSize = imageSize
        plan.crop.x += rect.x
        plan.crop.y += rect.y
        plan.region = plan.region.map(outside)
        plan.subjects = plan.subjects.map { var s = $0; s.box = outside(s.box); return s }
        return plan
    }

    /// Places a crop smaller than its one subject. It centres on the subject, except that:
    /// a face taller than the crop loses more of its chin than of its forehead, and a face much
    /// taller than the crop keeps its top (forehead and eyes) whole; an animal or person larger
    /// than the crop is centred on its own face when one was found inside it, else on the most
    /// salient part of it, staying within its box.
    static func placeOversized(
        _ subject: Subject, in region: Box, size: PixelSize, frame: CropFrame, others: [Subject]
    ) -> PixelRect {
        let box = subject.box, width = Double(size.width), height = Double(size.height)
        var x = region.midX - width / 2, y = region.midY - height / 2
        if subject.kind == .face || subject.kind == .head {
            if height < box.height {
                y = height >= 0.85 * box.height
                    ? box.y + 0.25 * (box.height - height) : box.y - min(0.05 * box.height, 0.1 * height)
            }
        } else if let focus = focus(inside: box, among: others) {
            // Centre on the focus, but do not leave the subject's box on an axis where it is larger.
            func within(_ centre: Double, _ length: Double, _ low: Double, _ high: Double) -> Double {
                let start = centre - length / 2
                return high - low > length ? min(max(start, low), high - length) : start
            }
            if box.width > width { x = within(focus.midX, width, box.x, box.maxX) }
            if box.height > height { y = within(focus.midY, height, box.y, box.maxY) }
        }
        return frame.place(size: size, x: x, y: y)
    }

    /// The part of `box` to centre on: a face whose centre lies in it, else (for a person) the head
    /// at its top, else the overlap of the salient region with it.
    static func focus(inside box: Box, among subjects: [Subject]) -> Box? {
        if let face = subjects.filter({ $0.kind == .face && box.contains(x: $0.box.midX, y: $0.box.midY) })
            .max(by: { $0.box.area < $1.box.area })
        {
            return face.box
        }
        if let person = subjects.first(where: { $0.kind == .person && $0.box == box }),
            let head = HeadInference.heads(for: [person], faces: []).first
        {
            return head.box
        }
        return subjects.filter { $0.kind == .saliency }.compactMap { $0.box.intersection(box) }.max { $0.area < $1.area }
    }

    /// Each subject's box grown by `scale` × the padding (and face headroom), inside the image.
    static func pad(_ subjects: [Subject], options: CropOptions, scale: Double, imageSize: PixelSize) -> [Box] {
        subjects.map {
            let headroom = $0.kind == .face ? options.faceHeadroom * scale : 0
            return options.padding.scaled(by: scale).apply(to: $0.box, headroom: headroom).clamped(to: imageSize)
        }
    }

    /// The smallest box holding every box, or nil for none.
    static func union(_ boxes: [Box]) -> Box? {
        boxes.dropFirst().reduce(boxes.first) { $0?.union($1) }
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
