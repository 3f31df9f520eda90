import Testing
import FocalCore

/// A focus point or a region a person chose replaces detection: strategy `.manual`, no subjects.
@Suite struct ManualOverrideTests {
    // Faces the override must ignore: far top left.
    let detected = [face(50, 50, 300, 300), face(400, 80, 300, 300)]

    @Test func focusPointCentresTheLargestCrop() throws {
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), detected, CropOptions(override: .focus(x: 3500, y: 2000)))
        #expect(plan.strategy == .manual)
        #expect(plan.subjects.isEmpty, "detection subjects are ignored")
        #expect(plan.crop == PixelRect(x: 1500, y: 0, width: 4000, height: 4000))
        #expect(close(plan.region, Box(x: 3500, y: 2000, width: 0, height: 0)))
    }

    @Test(arguments: [
        (3000.0, 2000.0, PixelRect(x: 1000, y: 0, width: 4000, height: 4000)),
        (5900.0, 100.0, PixelRect(x: 2000, y: 0, width: 4000, height: 4000)),
        (100.0, 3900.0, PixelRect(x: 0, y: 0, width: 4000, height: 4000)),
        (-500.0, -500.0, PixelRect(x: 0, y: 0, width: 4000, height: 4000)),
        (99999.0, 2000.0, PixelRect(x: 2000, y: 0, width: 4000, height: 4000)),
    ])
    func focusPointIsKeptInsideTheImage(x: Double, y: Double, expected: PixelRect) throws {
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), detected, CropOptions(override: .focus(x: x, y: y)))
        #expect(plan.crop == expected)
    }

    @Test func focusPointMovesBothWays() throws {
        // 16:9 on a portrait image: the crop slides vertically.
        let top = try planCrop(4000, 6000, .aspect(width: 16, height: 9), [], CropOptions(override: .focus(x: 2000, y: 500)))
        let bottom = try planCrop(4000, 6000, .aspect(width: 16, height: 9), [], CropOptions(override: .focus(x: 2000, y: 5000)))
        #expect(top.crop == PixelRect(x: 0, y: 0, width: 4000, height: 2250))
        #expect(bottom.crop == PixelRect(x: 0, y: 3750, width: 4000, height: 2250))
        let middle = try planCrop(4000, 6000, .aspect(width: 16, height: 9), [], CropOptions(override: .focus(x: 2000, y: 3000)))
        #expect(middle.crop.y == 1875)
    }

    @Test func regionTakesTheSmallestCropThatHoldsIt() throws {
        // 800×300 needs 800×450 at 16:9, centred on the region's middle (1400, 1150).
        let rect = PixelRect(x: 1000, y: 1000, width: 800, height: 300)
        let plan = try planCrop(4000, 3000, .size(width: 160, height: 90), detected, CropOptions(override: .region(rect)))
        #expect(plan.strategy == .manual)
        #expect(plan.subjects.isEmpty)
        #expect(plan.crop == PixelRect(x: 1000, y: 925, width: 800, height: 450))
        #expect(close(plan.region, rect.box))
        #expect(plan.outputSize == PixelSize(width: 160, height: 90))
    }

    @Test func regionNeverGivesACropBelowTheOutputSize() throws {
        let rect = PixelRect(x: 2000, y: 1500, width: 50, height: 50)
        let plan = try planCrop(4000, 3000, .size(width: 1600, height: 900), [], CropOptions(override: .region(rect)))
        #expect(plan.crop == PixelRect(x: 1225, y: 1075, width: 1600, height: 900))
    }

    @Test func regionLargerThanTheLargestCropGivesTheLargestCrop() throws {
        let rect = PixelRect(x: 0, y: 0, width: 4000, height: 3000)
        let plan = try planCrop(4000, 3000, .size(width: 160, height: 90), [], CropOptions(override: .region(rect)))
        #expect(plan.crop == PixelRect(x: 0, y: 375, width: 4000, height: 2250))
    }

    @Test func regionPartlyOutsideTheImageIsClipped() throws {
        let rect = PixelRect(x: -200, y: -200, width: 600, height: 500)  // 400×300 inside
        let plan = try planCrop(4000, 3000, .size(width: 400, height: 300), [], CropOptions(override: .region(rect)))
        #expect(close(plan.region, Box(x: 0, y: 0, width: 400, height: 300)))
        #expect(plan.crop == PixelRect(x: 0, y: 0, width: 400, height: 300))
    }

    @Test func overrideWinsEvenWithDetectionOff() throws {
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), detected, CropOptions(override: .focus(x: 5000, y: 0), detect: false))
        #expect(plan.strategy == .manual)
        #expect(plan.crop.x == 2000)
    }

    /// Once a bug: a manual region with an aspect target gives the largest crop instead of the smallest one holding the region.
    @Test
    func regionWithAnAspectTargetTakesTheSmallestCropThatHoldsIt() throws {
        let rect = PixelRect(x: 1000, y: 1000, width: 800, height: 300)
        let plan = try planCrop(4000, 3000, .aspect(width: 16, height: 9), [], CropOptions(override: .region(rect)))
        #expect(plan.crop.box.contains(rect.box, tolerance: 1))
        #expect(plan.crop == PixelRect(x: 1000, y: 925, width: 800, height: 450))
    }
}
