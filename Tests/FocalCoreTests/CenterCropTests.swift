import Testing
import FocalCore

/// Detection off, or nothing usable found: a plain centre crop of the largest size.
@Suite struct CenterCropTests {
    let faces = [face(100, 100, 300, 300), face(400, 150, 250, 250)]

    @Test func detectionOffGivesTheCentreCropEvenWithFaces() throws {
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), faces, CropOptions(detect: false))
        #expect(plan.strategy == .center)
        #expect(plan.crop == PixelRect(x: 1000, y: 0, width: 4000, height: 4000))
        #expect(plan.subjects.isEmpty)
        #expect(plan.region == nil)
    }

    @Test func noSubjectsGivesTheCentreCrop() throws {
        let plan = try planCrop(4000, 6000, .aspect(width: 16, height: 9))
        #expect(plan.strategy == .center)
        #expect(plan.crop == PixelRect(x: 0, y: 1875, width: 4000, height: 2250))
        #expect(plan.subjects.isEmpty)
        #expect(plan.region == nil)
    }

    @Test func unusableSubjectsGiveTheCentreCrop() throws {
        // Empty boxes, and subjects under their kind's threshold, are not subjects.
        let subjects = [face(100, 100, 0, 300), face(100, 100, 300, 0), subject(.dog, 50, 50, 200, 200, confidence: 0.2)]
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), subjects, CropOptions(minimumConfidence: [.dog: 0.5]))
        #expect(plan.strategy == .center)
        #expect(plan.crop == PixelRect(x: 1000, y: 0, width: 4000, height: 4000))
    }

    @Test(arguments: [
        (PixelSize(width: 101, height: 50), PixelRect(x: 25, y: 0, width: 50, height: 50)),  // 25.5 rounds down
        (PixelSize(width: 50, height: 101), PixelRect(x: 0, y: 25, width: 50, height: 50)),
        (PixelSize(width: 50, height: 50), PixelRect(x: 0, y: 0, width: 50, height: 50)),
    ])
    func centreCropSplitsTheOddPixelTheSameWayEachTime(image: PixelSize, expected: PixelRect) throws {
        let first = try CropPlanner.plan(imageSize: image, target: .aspect(width: 1, height: 1), subjects: [])
        let second = try CropPlanner.plan(imageSize: image, target: .aspect(width: 1, height: 1), subjects: faces,
                                          options: CropOptions(detect: false))
        #expect(first.crop == expected)
        #expect(second.crop == expected)
    }
}
