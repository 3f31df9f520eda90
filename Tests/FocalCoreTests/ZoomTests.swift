import Testing
import FocalCore

/// Zoom `subject(f)`: the smallest crop in which the padded region spans at most `f` of each
/// side, but never below the output size and never beyond the largest (fill) crop.
@Suite struct ZoomTests {
    // A 200×200 face; padded by default (10 %, 25 % headroom) its region is 240×290 at (980, 930),
    // centred on (1100, 1075). The largest 1:1 crop of 4000×3000 is 3000×3000.
    let theFace = face(1000, 1000, 200, 200)
    let region = Box(x: 980, y: 930, width: 240, height: 290)

    @Test func zoomsInUntilTheRegionSpansTheFraction() throws {
        // f = 0.5: height 290 / 0.5 = 580 (width 240 / 0.5 = 480 is looser): 580×580 around the centre.
        let plan = try planCrop(4000, 3000, .size(width: 100, height: 100), [theFace], CropOptions(zoom: .subject(0.5)))
        #expect(plan.crop == PixelRect(x: 810, y: 785, width: 580, height: 580))
        #expect(plan.outputSize == PixelSize(width: 100, height: 100))
    }

    @Test func subjectOneIsTheSmallestCropHoldingTheRegion() throws {
        let plan = try planCrop(4000, 3000, .size(width: 100, height: 100), [theFace], CropOptions(zoom: .subject(1)))
        #expect(plan.crop == PixelRect(x: 955, y: 930, width: 290, height: 290))
        #expect(plan.crop.box.contains(region))
    }

    @Test(arguments: [1.0, 0.9, 0.75, 0.6, 0.5, 0.33, 0.2, 0.12])
    func theRegionFillsTheFractionOfTheTighterSide(f: Double) throws {
        for (w, h) in [(100, 100), (160, 90), (90, 160)] {
            let target = CropTarget.size(width: w, height: h)
            let crop = try planCrop(4000, 3000, target, [theFace], CropOptions(zoom: .subject(f))).crop
            let fill = CropPlanner.fillSize(imageSize: PixelSize(width: 4000, height: 3000), aspect: (w, h))
            #expect(crop.box.contains(region, tolerance: 1))
            if crop.size == fill {
                // Only when the zoom asks for more than the largest crop.
                #expect(region.height / f > Double(fill.height) - 1 || region.width / f > Double(fill.width) - 1, "\(target) f=\(f)")
                continue
            }
            // At most f of each side (half a pixel of rounding on the width)...
            #expect(region.height <= f * Double(crop.height) + 1e-9, "\(target) f=\(f) crop \(crop)")
            #expect(region.width <= f * (Double(crop.width) + 0.5) + 1e-9, "\(target) f=\(f) crop \(crop)")
            // ...and a crop one pixel shorter would be too small on the tighter side.
            let shorter = Double(crop.height - 1)
            #expect(region.height > f * shorter || region.width > f * shorter * target.ratio, "\(target) f=\(f) crop \(crop)")
        }
    }

    @Test func aSmallerFractionGivesALargerCrop() throws {
        var previous = 0
        for f in [1.0, 0.8, 0.6, 0.4, 0.2] {
            let crop = try planCrop(4000, 3000, .size(width: 100, height: 100), [theFace], CropOptions(zoom: .subject(f))).crop
            #expect(crop.height > previous, "f=\(f)")
            previous = crop.height
        }
    }

    @Test func neverBelowTheOutputSize() throws {
        // The region needs only ~160 pixels of height, but the output is 1600×900: no upscaling.
        let small = face(2000, 1500, 100, 100)
        let plan = try planCrop(4000, 3000, .size(width: 1600, height: 900), [small], CropOptions(zoom: .subject(0.9)))
        #expect(plan.crop.size == PixelSize(width: 1600, height: 900))
        #expect(isWhole(small.box, in: plan.crop))
        // And for a portrait output.
        let portrait = try planCrop(4000, 3000, .size(width: 600, height: 1200), [small], CropOptions(zoom: .subject(0.9)))
        #expect(portrait.crop.size == PixelSize(width: 600, height: 1200))
    }

    @Test func neverBeyondFill() throws {
        let huge = face(500, 500, 2000, 2000)
        let plan = try planCrop(4000, 3000, .size(width: 100, height: 100), [huge], CropOptions(zoom: .subject(0.5)))
        #expect(plan.crop.size == PixelSize(width: 3000, height: 3000))
        // An output larger than the image: the largest crop, scaled up.
        let big = try planCrop(4000, 3000, .size(width: 8000, height: 6000), [theFace], CropOptions(zoom: .subject(0.5)))
        #expect(big.crop.size == PixelSize(width: 4000, height: 3000))
    }

    @Test func fillIgnoresTheSubjectSize() throws {
        let plan = try planCrop(4000, 3000, .size(width: 100, height: 100), [theFace], CropOptions(zoom: .fill))
        #expect(plan.crop.size == PixelSize(width: 3000, height: 3000))
    }

    /// Once a bug: zoom subject(f) does nothing for an aspect target: the output size used as the zoom's lower bound is the fill size.
    @Test
    func zoomsInForAnAspectTargetToo() throws {
        // An aspect target has no output size to stay above: the crop is its own output. The
        // zoom must work as it does for a size target of the same aspect (580×580 here).
        let bySize = try planCrop(4000, 3000, .size(width: 100, height: 100), [theFace], CropOptions(zoom: .subject(0.5)))
        #expect(bySize.crop.size == PixelSize(width: 580, height: 580))
        let byAspect = try planCrop(4000, 3000, .aspect(width: 1, height: 1), [theFace], CropOptions(zoom: .subject(0.5)))
        #expect(byAspect.crop == bySize.crop)
        #expect(byAspect.crop.width < 3000)
        #expect(byAspect.outputSize == byAspect.crop.size)
    }
}
