import Testing
import FocalCore

/// Inputs the planner must refuse with a `PlanningError` rather than plan something odd.
@Suite struct PlanningValidationTests {
    let image = PixelSize(width: 1000, height: 800)
    let subjects = [face(100, 100, 200, 200)]

    func error(_ image: PixelSize, _ target: CropTarget, _ options: CropOptions = .default) -> PlanningError? {
        planningError { () throws(PlanningError) in
            _ = try CropPlanner.plan(imageSize: image, target: target, subjects: subjects, options: options)
        }
    }

    @Test(arguments: [
        CropTarget.size(width: 0, height: 300), .size(width: 400, height: 0), .size(width: 0, height: 0),
        .size(width: -400, height: 300), .aspect(width: 0, height: 9), .aspect(width: 16, height: 0),
        .aspect(width: 16, height: -9), .size(width: 100_001, height: 10), .aspect(width: 1, height: 200_000),
    ])
    func invalidTargetsThrow(target: CropTarget) {
        let error = error(image, target)
        #expect(error?.isInvalidTarget == true, "\(target): \(String(describing: error))")
    }

    @Test(arguments: [
        CropOptions(padding: .fraction(-0.1)), CropOptions(padding: .pixels(-1)),
        CropOptions(padding: .fraction(.nan)), CropOptions(padding: .pixels(.infinity)), CropOptions(padding: .fraction(11)),
        CropOptions(zoom: .subject(0)), CropOptions(zoom: .subject(1.5)), CropOptions(zoom: .subject(-0.5)),
        CropOptions(zoom: .subject(.nan)),
        CropOptions(faceHeadroom: -0.1), CropOptions(faceHeadroom: 2.5), CropOptions(faceHeadroom: .nan),
    ])
    func invalidOptionsThrow(options: CropOptions) {
        let error = error(image, .aspect(width: 1, height: 1), options)
        #expect(error?.isInvalidOption == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        PixelSize(width: 0, height: 800), PixelSize(width: 1000, height: 0), PixelSize(width: 0, height: 0),
        PixelSize(width: -5, height: 10),
    ])
    func emptyImagesThrow(image: PixelSize) {
        let error = error(image, .aspect(width: 1, height: 1))
        #expect(error?.isEmptyImage == true, "\(String(describing: error))")
        if case let .emptyImage(size)? = error { #expect(size == image) }
    }

    @Test func theOptionsAreCheckedEvenWithAManualOverride() {
        let options = CropOptions(padding: .fraction(-1), override: .focus(x: 10, y: 10))
        #expect(error(image, .aspect(width: 1, height: 1), options)?.isInvalidOption == true)
    }

    @Test(arguments: [
        CropOptions(padding: .fraction(0)), CropOptions(padding: .fraction(10)), CropOptions(padding: .pixels(0)),
        CropOptions(padding: .pixels(5000)), CropOptions(zoom: .subject(1)), CropOptions(zoom: .subject(0.001)),
        CropOptions(faceHeadroom: 0), CropOptions(faceHeadroom: 2),
    ])
    func limitValuesAreAccepted(options: CropOptions) throws {
        let plan = try CropPlanner.plan(imageSize: image, target: .aspect(width: 1, height: 1), subjects: subjects, options: options)
        #expect(plan.crop.isInside(image))
    }

    @Test func errorsSayWhatIsWrong() {
        let target = error(image, .size(width: 0, height: 300))
        #expect(target.map { String(describing: $0) }?.contains("0x300") == true)
        let zoom = error(image, .aspect(width: 1, height: 1), CropOptions(zoom: .subject(1.5)))
        #expect(zoom.map { String(describing: $0) }?.contains("1.5") == true)
    }
}
