import Testing
import FocalCore

/// Crop bounds and override regions come from callers (URLs, JSON, saved crops) as any `Int`: the
/// planner clips them to the image and bounds every coordinate before it converts it back
/// (`Int(rounding:within:)`), so no value, however far out, can trap; one wholly outside the
/// image is refused with an error instead.
@Suite struct ExtremeCoordinateTests {
    static let far = [Int.min, Int.min + 1, -1_000_000_000_000, -1, 0, 1, 1_000_000_000_000, Int.max - 1, Int.max]

    @Test("bounds anywhere in Int's range give a plan inside the image, or a planning error", arguments: far)
    func extremeBounds(origin: Int) {
        let image = PixelSize(width: 600, height: 400)
        for size in [1, 300, Int.max] {
            var options = CropOptions()
            options.bounds = PixelRect(x: origin, y: origin, width: size, height: size)
            do {
                let plan = try CropPlanner.plan(imageSize: image, target: .aspect(width: 1, height: 1), subjects: [], options: options)
                #expect(plan.crop.isInside(image), "bounds at \(origin) size \(size): \(plan.crop)")
            } catch {
                #expect(error.description.contains("outside the image"), "bounds at \(origin) size \(size): \(error)")
            }
        }
    }

    @Test("an override region anywhere in Int's range, within bounds, gives a plan inside the image", arguments: far)
    func extremeRegionWithinBounds(origin: Int) throws {
        let image = PixelSize(width: 600, height: 400)
        var options = CropOptions(override: .region(PixelRect(x: origin, y: origin, width: Int.max, height: Int.max)))
        options.bounds = PixelRect(x: 100, y: 50, width: 400, height: 300)
        let plan = try CropPlanner.plan(imageSize: image, target: .aspect(width: 4, height: 3), subjects: [], options: options)
        #expect(plan.crop.isInside(image))
        #expect(plan.strategy == .manual)
    }
}
