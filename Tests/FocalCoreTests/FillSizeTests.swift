import Testing
import FocalCore

/// Zoom `fill`: the largest crop of the target aspect, and the output size it is resized to.
@Suite struct FillSizeTests {
    /// (image, aspect, the largest crop of that aspect), worked out by hand: the crop keeps the
    /// image's full width or full height and the other side is the exact aspect, rounded.
    static let cases: [FillCase] = [
        // landscape 3:2
        FillCase(PixelSize(width: 6000, height: 4000), (1, 1), PixelSize(width: 4000, height: 4000)),
        FillCase(PixelSize(width: 6000, height: 4000), (16, 9), PixelSize(width: 6000, height: 3375)),
        FillCase(PixelSize(width: 6000, height: 4000), (9, 16), PixelSize(width: 2250, height: 4000)),
        FillCase(PixelSize(width: 6000, height: 4000), (4, 5), PixelSize(width: 3200, height: 4000)),
        FillCase(PixelSize(width: 6000, height: 4000), (3, 2), PixelSize(width: 6000, height: 4000)),
        // portrait 2:3
        FillCase(PixelSize(width: 4000, height: 6000), (1, 1), PixelSize(width: 4000, height: 4000)),
        FillCase(PixelSize(width: 4000, height: 6000), (16, 9), PixelSize(width: 4000, height: 2250)),
        FillCase(PixelSize(width: 4000, height: 6000), (9, 16), PixelSize(width: 3375, height: 6000)),
        FillCase(PixelSize(width: 4000, height: 6000), (4, 5), PixelSize(width: 4000, height: 5000)),
        FillCase(PixelSize(width: 4000, height: 6000), (3, 2), PixelSize(width: 4000, height: 2667)),  // 2666.67
        // square
        FillCase(PixelSize(width: 3600, height: 3600), (1, 1), PixelSize(width: 3600, height: 3600)),
        FillCase(PixelSize(width: 3600, height: 3600), (16, 9), PixelSize(width: 3600, height: 2025)),
        FillCase(PixelSize(width: 3600, height: 3600), (9, 16), PixelSize(width: 2025, height: 3600)),
        FillCase(PixelSize(width: 3600, height: 3600), (4, 5), PixelSize(width: 2880, height: 3600)),
        FillCase(PixelSize(width: 3600, height: 3600), (3, 2), PixelSize(width: 3600, height: 2400)),
        // sizes that do not divide evenly
        FillCase(PixelSize(width: 1000, height: 1000), (3, 2), PixelSize(width: 1000, height: 667)),  // 666.67
        FillCase(PixelSize(width: 1001, height: 700), (4, 5), PixelSize(width: 560, height: 700)),
        FillCase(PixelSize(width: 640, height: 481), (3, 2), PixelSize(width: 640, height: 427)),  // 426.67
    ]

    @Test(arguments: cases)
    func aspectTargetTakesTheLargestCrop(_ c: FillCase) throws {
        let (image, aspect, expected) = (c.image, c.aspect, c.expected)
        let plan = try CropPlanner.plan(
            imageSize: image, target: .aspect(width: aspect.0, height: aspect.1), subjects: [])
        #expect(plan.crop.size == expected)
        #expect(plan.crop.isInside(image))
        #expect(plan.outputSize == plan.crop.size, "an aspect target is not resized")
        #expect(CropPlanner.fillSize(imageSize: image, aspect: aspect) == expected)
    }

    @Test(arguments: cases)
    func sizeTargetCropsTheSameRectangleAndResizesToTheSize(_ c: FillCase) throws {
        let (image, aspect, expected) = (c.image, c.aspect, c.expected)
        // 40a × 40b has the aspect a:b; the crop is the same as for the bare aspect.
        let target = CropTarget.size(width: 40 * aspect.0, height: 40 * aspect.1)
        let plan = try CropPlanner.plan(imageSize: image, target: target, subjects: [])
        #expect(plan.crop.size == expected)
        #expect(plan.outputSize == PixelSize(width: 40 * aspect.0, height: 40 * aspect.1))
    }

    /// Images already at the target aspect (including unreduced ratios like 32:18).
    static let exact: [FillCase] = [
        FillCase(PixelSize(width: 1920, height: 1080), (16, 9)),
        FillCase(PixelSize(width: 1080, height: 1920), (9, 16)),
        FillCase(PixelSize(width: 1080, height: 1350), (4, 5)),
        FillCase(PixelSize(width: 6000, height: 4000), (3, 2)),
        FillCase(PixelSize(width: 1001, height: 1001), (1, 1)),
        FillCase(PixelSize(width: 3840, height: 2160), (32, 18)),
        FillCase(PixelSize(width: 1, height: 1), (1, 1)),
        FillCase(PixelSize(width: 7, height: 3), (7, 3)),
        FillCase(PixelSize(width: 4999, height: 1), (4999, 1)),
        FillCase(PixelSize(width: 2, height: 5998), (1, 2999)),
        FillCase(PixelSize(width: 5900, height: 2950), (2, 1)),
        FillCase(PixelSize(width: 3333, height: 4444), (3, 4)),
    ]

    @Test(arguments: exact)
    func imageAlreadyAtTheAspectIsNotTrimmed(_ c: FillCase) throws {
        let (image, aspect) = (c.image, c.aspect)
        let full = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        let byAspect = try CropPlanner.plan(imageSize: image, target: .aspect(width: aspect.0, height: aspect.1), subjects: [])
        #expect(byAspect.crop == full)
        #expect(byAspect.outputSize == image)
        // The same with subjects present: fill cannot grow, and must not shrink.
        let busy = try CropPlanner.plan(
            imageSize: image, target: .aspect(width: aspect.0, height: aspect.1),
            subjects: [face(0, 0, Double(image.width) / 2, Double(image.height) / 2)])
        #expect(busy.crop == full)
        let bySize = try CropPlanner.plan(imageSize: image, target: .size(width: aspect.0, height: aspect.1), subjects: [])
        #expect(bySize.crop == full)
        #expect(bySize.outputSize == PixelSize(width: aspect.0, height: aspect.1))
    }

    @Test func sizeTargetSetsTheOutputSizeExactly() throws {
        // 400x300 is 4:3: the largest 4:3 crop of 6000x4000 is 5333x4000 (5333.33 rounded down).
        let down = try planCrop(6000, 4000, .size(width: 400, height: 300))
        #expect(down.outputSize == PixelSize(width: 400, height: 300))
        #expect(down.crop.size == PixelSize(width: 5333, height: 4000))
        // Larger than the image: still exactly the size asked for (the crop is scaled up).
        let up = try planCrop(300, 200, .size(width: 1200, height: 1200))
        #expect(up.outputSize == PixelSize(width: 1200, height: 1200))
        #expect(up.crop == PixelRect(x: 50, y: 0, width: 200, height: 200))
        // With subjects and a zoom, the output size does not move.
        let zoomed = try planCrop(
            6000, 4000, .size(width: 640, height: 360), [face(3000, 2000, 100, 100)], CropOptions(zoom: .subject(0.5)))
        #expect(zoomed.outputSize == PixelSize(width: 640, height: 360))
    }

    @Test func aspectTargetOutputIsTheCropItself() throws {
        let subjects = [face(5000, 300, 400, 400), subject(.person, 200, 100, 600, 3800)]
        for options in [CropOptions.default, CropOptions(scheme: .smallest), CropOptions(override: .focus(x: 10, y: 10))] {
            let plan = try planCrop(6000, 4000, .aspect(width: 4, height: 5), subjects, options)
            #expect(plan.outputSize == plan.crop.size)
        }
    }
}

/// An image, an aspect and (when known) the largest crop of that aspect.
struct FillCase: Sendable, CustomTestStringConvertible {
    let image: PixelSize
    let aspect: (Int, Int)
    let expected: PixelSize

    init(_ image: PixelSize, _ aspect: (Int, Int), _ expected: PixelSize? = nil) {
        self.image = image
        self.aspect = aspect
        self.expected = expected ?? image
    }

    var testDescription: String { "\(image) at \(aspect.0):\(aspect.1)" }
}
