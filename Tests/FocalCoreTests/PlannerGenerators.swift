import Testing
import PropertyBased
import FocalCore

/// One planner call: everything `CropPlanner.plan` takes.
struct PlannerCase: Sendable, CustomTestStringConvertible {
    var image: PixelSize
    var target: CropTarget
    var subjects: [Subject]
    var options: CropOptions

    func plan() throws(PlanningError) -> CropPlan {
        try CropPlanner.plan(imageSize: image, target: target, subjects: subjects, options: options)
    }

    /// The target's two numbers.
    var terms: (a: Int, b: Int) {
        switch target {
        case let .size(w, h), let .aspect(w, h): (w, h)
        }
    }

    /// The largest crop of the target aspect.
    var fill: PixelSize { CropPlanner.fillSize(imageSize: image, aspect: terms) }

    var testDescription: String {
        let boxes = subjects.map {
            "\($0.kind.rawValue)(\($0.box.x), \($0.box.y), \($0.box.width), \($0.box.height), c: \($0.confidence))"
        }
        let o = options
        return """
            image \(image) target \(target) subjects [\(boxes.joined(separator: ", "))] \
            scheme \(o.scheme) padding \(o.padding) headroom \(o.faceHeadroom) zoom \(o.zoom) \
            override \(o.override.map { "\($0)" } ?? "none") detect \(o.detect) minimum \(o.minimumConfidence)
            """
    }
}

/// Random planner inputs. Every generator here makes valid inputs only: the planner must never throw.
enum PlannerGen {
    /// 1...6000 on each side, with one in six images tiny (1...16 on a side) so that extreme
    /// shapes come up.
    static func imageSize(_ rng: inout some RandomNumberGenerator) -> PixelSize {
        func side() -> Int {
            Int.random(in: 0..<6, using: &rng) == 0 ? Int.random(in: 1...16, using: &rng) : Int.random(in: 1...6000, using: &rng)
        }
        return PixelSize(width: side(), height: side())
    }

    /// Half aspects with terms 1...50, half sizes with sides 1...2000.
    static func target(_ rng: inout some RandomNumberGenerator) -> CropTarget {
        if Bool.random(using: &rng) {
            return .aspect(width: Int.random(in: 1...50, using: &rng), height: Int.random(in: 1...50, using: &rng))
        }
        return .size(width: Int.random(in: 1...2000, using: &rng), height: Int.random(in: 1...2000, using: &rng))
    }

    /// A length between 1 and `limit` pixels, spread roughly evenly on a log scale (halved 0 to
    /// 12 times), with a fraction.
    static func length(upTo limit: Int, _ rng: inout some RandomNumberGenerator) -> Double {
        var value = Double(max(limit, 1))
        for _ in 0..<Int.random(in: 0...12, using: &rng) { value /= 2 }
        return min(Double(max(limit, 1)), max(1, value * Double.random(in: 0.5...1, using: &rng)))
    }

    /// A subject whose centre lies in the image: wholly inside, or partly outside near an edge.
    static func subject(in image: PixelSize, kind: SubjectKind, _ rng: inout some RandomNumberGenerator) -> Subject {
        let w = length(upTo: Int(Double(image.width) * 1.2), &rng), h = length(upTo: Int(Double(image.height) * 1.2), &rng)
        let cx = Double.random(in: 0...Double(image.width), using: &rng)
        let cy = Double.random(in: 0...Double(image.height), using: &rng)
        return Subject(kind: kind, box: Box(x: cx - w / 2, y: cy - h / 2, width: w, height: h),
                       confidence: Double.random(in: 0...1, using: &rng))
    }

    static func subjects(in image: PixelSize, _ rng: inout some RandomNumberGenerator) -> [Subject] {
        (0..<Int.random(in: 0...8, using: &rng)).map { _ in
            subject(in: image, kind: SubjectKindTraits.builtIn.map(\.kind).randomElement(using: &rng)!, &rng)
        }
    }

    static func padding(_ rng: inout some RandomNumberGenerator) -> Padding {
        Int.random(in: 0..<5, using: &rng) < 3
            ? .fraction(Double.random(in: 0...1.5, using: &rng)) : .pixels(Double.random(in: 0...300, using: &rng))
    }

    static func zoom(_ rng: inout some RandomNumberGenerator) -> Zoom {
        Bool.random(using: &rng) ? .fill : .subject(Double.random(in: 0.05...1, using: &rng))
    }

    static func override(in image: PixelSize, _ rng: inout some RandomNumberGenerator) -> ManualOverride? {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0:
            return .focus(x: Double.random(in: -200...Double(image.width + 200), using: &rng),
                          y: Double.random(in: -200...Double(image.height + 200), using: &rng))
        case 1:
            let w = Int(length(upTo: image.width + 100, &rng)), h = Int(length(upTo: image.height + 100, &rng))
            // At least one pixel of it inside the image.
            let x = Int.random(in: (1 - w)...(image.width - 1), using: &rng)
            let y = Int.random(in: (1 - h)...(image.height - 1), using: &rng)
            return .region(PixelRect(x: x, y: y, width: w, height: h))
        default:
            return nil
        }
    }

    static func options(in image: PixelSize, _ rng: inout some RandomNumberGenerator) -> CropOptions {
        var minimum: [SubjectKind: Double] = [:]
        if Int.random(in: 0..<3, using: &rng) == 0 {
            for kind in SubjectKindTraits.builtIn.map(\.kind) where Bool.random(using: &rng) {
                minimum[kind] = Double.random(in: 0...1, using: &rng)
            }
        }
        return CropOptions(
            scheme: BoundingScheme.allCases.randomElement(using: &rng)!, padding: padding(&rng),
            faceHeadroom: Double.random(in: 0...1, using: &rng), zoom: zoom(&rng), override: override(in: image, &rng),
            detect: Int.random(in: 0..<10, using: &rng) != 0, minimumConfidence: minimum)
    }

    /// Anything the planner accepts.
    static let anyCase = Generator<PlannerCase, Shrink.None<PlannerCase>>(run: { rng in
        let image = imageSize(&rng)
        return PlannerCase(image: image, target: target(&rng), subjects: subjects(in: image, &rng), options: options(in: image, &rng))
    })

    /// One to eight faces, usually bunched so that together they fit in the largest crop, planned
    /// with zoom fill and scheme all, no override and no thresholds.
    static let faceGroups = Generator<PlannerCase, Shrink.None<PlannerCase>>(run: { rng in
        let image = imageSize(&rng)
        let target = target(&rng)
        var probe = PlannerCase(image: image, target: target, subjects: [], options: .default)
        let fill = probe.fill
        // A cluster no larger than the fill crop (usually), which may stick out of the image.
        let loose = Int.random(in: 0..<5, using: &rng) == 0
        let cw = Double.random(in: 1...Double(loose ? image.width : fill.width), using: &rng)
        let ch = Double.random(in: 1...Double(loose ? image.height : fill.height), using: &rng)
        let cx = Double.random(in: -cw / 3...Double(image.width) - 2 * cw / 3, using: &rng)
        let cy = Double.random(in: -ch / 3...Double(image.height) - 2 * ch / 3, using: &rng)
        probe.subjects = (0..<Int.random(in: 1...8, using: &rng)).map { _ in
            let w = Double.random(in: 0.05...1, using: &rng) * cw, h = Double.random(in: 0.05...1, using: &rng) * ch
            return Subject(kind: .face, box: Box(x: cx + Double.random(in: 0...(cw - w), using: &rng),
                                                  y: cy + Double.random(in: 0...(ch - h), using: &rng), width: w, height: h),
                           confidence: Double.random(in: 0.01...1, using: &rng))
        }
        probe.options = CropOptions(scheme: .all, padding: padding(&rng), faceHeadroom: Double.random(in: 0...1, using: &rng), zoom: .fill)
        return probe
    })

    /// One face, wholly inside the image, much taller than the largest crop (at least 1/0.85 of
    /// its height): a wide target on a taller image.
    static let tallFaces = Generator<PlannerCase, Shrink.None<PlannerCase>>(run: { rng in
        while true {
            let image = PixelSize(width: Int.random(in: 2...6000, using: &rng), height: Int.random(in: 20...6000, using: &rng))
            let a = Int.random(in: 1...50, using: &rng), b = Int.random(in: 1...50, using: &rng)
            let target: CropTarget = Bool.random(using: &rng)
                ? .aspect(width: a, height: b) : .size(width: a * Int.random(in: 1...40, using: &rng), height: b * Int.random(in: 1...40, using: &rng))
            var c = PlannerCase(image: image, target: target, subjects: [], options: .default)
            let cropHeight = Double(c.fill.height)
            let lowest = (cropHeight / 0.85).rounded(.up) + 1
            guard lowest < Double(image.height) else { continue }
            let h = Double.random(in: lowest...Double(image.height), using: &rng)
            let w = Double.random(in: 1...Double(image.width), using: &rng)
            let box = Box(x: Double.random(in: 0...(Double(image.width) - w), using: &rng),
                          y: Double.random(in: 0...(Double(image.height) - h), using: &rng), width: w, height: h)
            c.subjects = [Subject(kind: .face, box: box, confidence: Double.random(in: 0.01...1, using: &rng))]
            c.options = CropOptions(padding: padding(&rng), faceHeadroom: Double.random(in: 0...1, using: &rng), zoom: zoom(&rng))
            return c
        }
    })
}
