import Foundation
import Focal
import FocalCore
import FocalImaging

/// The picture `--debug` writes: the photo, shaded outside the crop, with every subject in its
/// kind's colour and confidence, the padded region dashed and the crop outlined.
struct DebugOverlay {
    let analysis: Analysis
    let plan: CropPlan?

    /// The colour each kind is drawn in (`SubjectKind.traits`, as on the page).
    static func color(_ kind: SubjectKind) -> RGB {
        let rgb = kind.traits.rgb
        return RGB(rgb.red, rgb.green, rgb.blue)
    }

    func png(longSide: Int) throws -> Data {
        try RenderedImage(pixels: pixels(longSide: longSide)).encode(.png)
    }

    func pixels(longSide: Int) throws -> PixelBuffer {
        let proxy = try analysis.image.proxy(longSide: longSide)
        let s = Double(proxy.width) / Double(analysis.size.width)
        let t = Double(proxy.height) / Double(analysis.size.height)
        var canvas = Canvas(proxy)
        if let plan {
            let crop = plan.crop.box.scaled(x: s, y: t)
            canvas.shadeOutside(crop)
            if let region = plan.region { canvas.stroke(region.scaled(x: s, y: t), color: RGB(255, 255, 255), thickness: 1, dash: 6) }
        }
        let used = Set(plan?.subjects ?? [])
        // Inferred heads are not detections: they appear in the plan alone.
        let inferred = (plan?.subjects ?? []).filter { !analysis.subjects.contains($0) }
        for subject in analysis.subjects + inferred {
            let box = subject.box.scaled(x: s, y: t)
            let color = Self.color(subject.kind)
            canvas.stroke(box, color: color, thickness: used.contains(subject) ? 3 : 1)
            let text = "\(subject.kind.rawValue) \(Int(rounding: subject.confidence * 100, within: 0...100))%"
            canvas.label(text, x: Self.coordinate(box.x), y: Self.coordinate(box.y) - 18, color: color, size: 13)
        }
        if let plan {
            let crop = plan.crop.box.scaled(x: s, y: t)
            canvas.stroke(crop, color: RGB(255, 255, 255), thickness: 2)
            canvas.label("\(plan.strategy.rawValue) \(plan.crop)", x: Self.coordinate(crop.x) + 4, y: Self.coordinate(crop.maxY) - 22, color: RGB(255, 255, 255), size: 13)
        }
        return canvas.pixels
    }

    /// A drawing coordinate in whole pixels, kept far outside any canvas but within reach of
    /// label offsets (a caller's subject may lie anywhere).
    private static func coordinate(_ value: Double) -> Int { Int(rounding: value, within: -(1 << 24)...(1 << 24)) }
}
