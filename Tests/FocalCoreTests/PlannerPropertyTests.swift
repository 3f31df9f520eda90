import Testing
import PropertyBased
import FocalCore

/// Invariants of the planner over random images, targets, subjects and options.
@Suite struct PlannerPropertyTests {
    @Test func everyValidInputIsPlannedAndTheCropLiesInsideTheImage() async {
        await propertyCheck(count: 2000, input: PlannerGen.anyCase) { c in
            let plan: CropPlan
            do { plan = try c.plan() } catch {
                Issue.record("valid input refused: \(error)")
                return
            }
            #expect(plan.crop.isInside(c.image), "crop \(plan.crop)")
            #expect(plan.imageSize == c.image)
            let fill = c.fill
            #expect(plan.crop.width <= fill.width && plan.crop.height <= fill.height, "crop \(plan.crop), fill \(fill)")
        }
    }

    @Test func zoomFillAlwaysTakesTheLargestCrop() async {
        await propertyCheck(count: 1500, input: PlannerGen.anyCase) { c in
            var c = c
            c.options.zoom = .fill
            if case .region = c.options.override { c.options.override = nil }
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            #expect(plan.crop.size == c.fill, "crop \(plan.crop)")
        }
    }

    @Test func theOutputSizeFollowsTheTarget() async {
        await propertyCheck(count: 1500, input: PlannerGen.anyCase) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            switch c.target {
            case let .size(w, h): #expect(plan.outputSize == PixelSize(width: w, height: h))
            case .aspect: #expect(plan.outputSize == plan.crop.size)
            }
        }
    }

    @Test func theSamePlanForTheSameInput() async {
        await propertyCheck(count: 1500, input: PlannerGen.anyCase) { c in
            let first = try? c.plan(), second = try? c.plan()
            #expect(first != nil)
            #expect(first == second)
        }
    }

    @Test func whenThePaddedRegionFitsTheCropHoldsIt() async {
        // The region is fractional and the crop whole pixels: less than a pixel may be lost at
        // one edge.
        var checked = 0
        await propertyCheck(count: 2000, input: PlannerGen.anyCase) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            guard let region = plan.region,
                  region.width <= Double(plan.crop.width), region.height <= Double(plan.crop.height) else { return }
            checked += 1
            #expect(plan.crop.box.contains(region, tolerance: 1), "crop \(plan.crop) region \(region)")
        }
        #expect(checked > 300, "too few cases where the region fits: \(checked)")
    }

    @Test func whenAllFacesFitInTheFillCropEveryFaceIsKept() async {
        var checked = 0
        await propertyCheck(count: 1500, input: PlannerGen.faceGroups) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            let fill = c.fill
            let visible = c.subjects.map { $0.box.clamped(to: c.image) }
            guard let union = visible.dropFirst().reduce(visible.first, { $0?.union($1) }),
                  union.width <= Double(fill.width), union.height <= Double(fill.height) else { return }
            checked += 1
            #expect(plan.strategy == .faces)
            #expect(plan.subjects.count == c.subjects.count)
            for box in visible {
                #expect(plan.crop.box.contains(box, tolerance: 1), "crop \(plan.crop) lost \(box)")
            }
        }
        #expect(checked > 700, "too few cases where the faces fit: \(checked)")
    }

    @Test func aFaceMuchTallerThanTheCropKeepsItsTop() async {
        await propertyCheck(count: 800, input: PlannerGen.tallFaces) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            let face = c.subjects[0].box, crop = plan.crop
            #expect(Double(crop.y) <= face.y, "crop \(crop)")
        }
    }

    /// Once a bug: the margin above a face much taller than the crop is 5 % of the face, so a crop under 1/10 of the face height shows mostly (or only) what is above it.
    @Test
    func aFaceMuchTallerThanTheCropFillsTheCrop() async {
        // Most random cases have a face over ten times the crop's height, and fail.
        await propertyCheck(count: 800, input: PlannerGen.tallFaces) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            let face = c.subjects[0].box, crop = plan.crop
            // The top of the face fills at least the lower half of the crop (within the
            // pixel lost to rounding the crop's edge).
            #expect(Double(crop.maxY) - face.y >= Double(crop.height) / 2 - 1, "crop \(crop)")
        }
    }

    @Test func theStrategyMatchesTheSubjectsUsed() async {
        await propertyCheck(count: 2000, input: PlannerGen.anyCase) { c in
            guard let plan = try? c.plan() else { Issue.record("refused"); return }
            // Usable: a box, the confidence asked, and a kind the crop counts (the object
            // detector's other classes only when named).
            let usable = c.subjects.filter { subject in
                subject.box.width > 0 && subject.box.height > 0 && subject.confidence >= (c.options.minimumConfidence[subject.kind] ?? 0)
                    && (c.options.kinds.map { kinds in kinds.rank(of: subject.kind) != nil } ?? subject.kind.traits.countsByDefault)
            }
            if c.options.override != nil {
                #expect(plan.strategy == .manual)
                #expect(plan.subjects.isEmpty)
                return
            }
            if !c.options.detect || usable.isEmpty {
                #expect(plan.strategy == .center)
                #expect(plan.subjects.isEmpty && plan.region == nil)
                return
            }
            #expect(![CropStrategy.center, .manual].contains(plan.strategy))
            #expect(!plan.subjects.isEmpty)
            // Used subjects are usable ones, or heads inferred from usable people.
            let inferred = HeadInference.heads(for: usable.filter { $0.kind == .person }, faces: [])
            #expect(plan.subjects.allSatisfy { usable.contains($0) || ($0.kind == .head && inferred.contains($0)) }, "only usable subjects are used")
            #expect(plan.subjects.allSatisfy { strategy(of: $0.kind) == plan.strategy })
            if c.options.scheme != .all { #expect(plan.subjects.count == 1) }
            // A lower kind wins only when no higher kind is there.
            let kinds = Set(usable.map(\.kind))
            switch plan.strategy {
            case .people: #expect(kinds.isDisjoint(with: [.face, .cat, .dog]))
            case .saliency: #expect(kinds.isDisjoint(with: [.face, .cat, .dog, .person]))
            default: break
            }
        }
    }

    func strategy(of kind: SubjectKind) -> CropStrategy {
        switch kind {
        case .face, .head: .faces
        case .cat, .dog: .pets
        case .person: .people
        case .saliency: .saliency
        default: .objects
        }
    }

    @Test func aSubjectZoomStaysBetweenTheOutputSizeAndTheFill() async {
        // Only size targets with a subject zoom apply; a refusal is a failure, and the cases that
        // applied are counted so that the property cannot pass by checking nothing.
        var checked = 0
        await propertyCheck(count: 2000, input: PlannerGen.anyCase) { c in
            var c = c
            c.options.override = nil
            guard case let .size(w, h) = c.target, case .subject = c.options.zoom else { return }
            let plan: CropPlan
            do { plan = try c.plan() } catch {
                Issue.record("valid input refused: \(error)")
                return
            }
            checked += 1
            let fill = c.fill
            #expect(plan.crop.width <= fill.width && plan.crop.height <= fill.height)
            if w <= fill.width && h <= fill.height {
                // Never below the output size (the width within the one pixel of aspect rounding).
                #expect(plan.crop.height >= h && plan.crop.width >= w - 1, "crop \(plan.crop) for output \(w)x\(h)")
            }
        }
        #expect(checked > 200, "too few size targets with a subject zoom: \(checked)")
    }
}
