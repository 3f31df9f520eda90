import Testing
import FocalCore

/// The rectangle arithmetic the planner builds on.
@Suite struct GeometryTests {
    let a = Box(x: 0, y: 0, width: 10, height: 10)
    let b = Box(x: 5, y: 5, width: 10, height: 10)

    @Test func edgesAndArea() {
        #expect(b.maxX == 15 && b.maxY == 15 && b.midX == 10 && b.midY == 10)
        #expect(b.area == 100)
        #expect(Box(x: 0, y: 0, width: -3, height: 4).area == 0)
        #expect(PixelSize(width: 3, height: 7).area == 21)
    }

    @Test func unionHoldsBoth() {
        #expect(a.union(b) == Box(x: 0, y: 0, width: 15, height: 15))
        #expect(b.union(a) == a.union(b))
        let far = Box(x: -5, y: 20, width: 1, height: 1)
        #expect(a.union(far) == Box(x: -5, y: 0, width: 15, height: 21))
    }

    @Test func intersectionIsTheOverlapOrNothing() {
        #expect(a.intersection(b) == Box(x: 5, y: 5, width: 5, height: 5))
        #expect(a.intersection(Box(x: 10, y: 0, width: 5, height: 5)) == nil, "touching edges do not overlap")
        #expect(a.intersection(Box(x: 20, y: 20, width: 5, height: 5)) == nil)
        #expect(a.intersection(Box(x: 2, y: 3, width: 4, height: 4)) == Box(x: 2, y: 3, width: 4, height: 4))
    }

    @Test func intersectionOverUnion() {
        #expect(abs(a.iou(b) - 25.0 / 175.0) < 1e-12)
        #expect(a.iou(a) == 1)
        #expect(a.iou(Box(x: 50, y: 50, width: 1, height: 1)) == 0)
    }

    @Test func fractionInside() {
        #expect(b.fractionInside(a) == 0.25)
        #expect(a.fractionInside(Box(x: -1, y: -1, width: 100, height: 100)) == 1)
        #expect(a.fractionInside(Box(x: 10, y: 10, width: 5, height: 5)) == 0)
        // An empty box is inside when its corner is.
        #expect(Box(x: 3, y: 3, width: 0, height: 0).fractionInside(a) == 1)
        #expect(Box(x: 30, y: 3, width: 0, height: 0).fractionInside(a) == 0)
    }

    @Test func containment() {
        #expect(a.contains(Box(x: 0, y: 0, width: 10, height: 10)))
        #expect(!a.contains(b))
        #expect(!a.contains(Box(x: 0, y: 0, width: 10.5, height: 10)))
        #expect(a.contains(Box(x: 0, y: 0, width: 10.5, height: 10), tolerance: 0.5))
        #expect(a.contains(x: 10, y: 10) && a.contains(x: 0, y: 0))
        #expect(!a.contains(x: 10.01, y: 5))
    }

    @Test func clampingToAnImage() {
        let size = PixelSize(width: 100, height: 50)
        #expect(Box(x: 10, y: 10, width: 20, height: 20).clamped(to: size) == Box(x: 10, y: 10, width: 20, height: 20))
        #expect(Box(x: -10, y: 40, width: 30, height: 30).clamped(to: size) == Box(x: 0, y: 40, width: 20, height: 10))
        #expect(Box(x: -10, y: -10, width: 200, height: 200).clamped(to: size) == Box(x: 0, y: 0, width: 100, height: 50))
        // Entirely outside: an empty box at the nearest edge.
        let outside = Box(x: 150, y: -30, width: 10, height: 10).clamped(to: size)
        #expect(outside.width == 0 && outside.height == 0 && outside.x == 100 && outside.y == 0)
    }

    @Test func scaling() {
        #expect(b.scaled(x: 2, y: 0.5) == Box(x: 10, y: 2.5, width: 20, height: 5))
    }

    @Test func pixelRects() {
        let rect = PixelRect(x: 2, y: 3, width: 4, height: 5)
        #expect(rect.box == Box(x: 2, y: 3, width: 4, height: 5))
        #expect(rect.size == PixelSize(width: 4, height: 5))
        #expect(rect.description == "4x5+2+3")
        #expect(PixelSize(width: 400, height: 300).description == "400x300")
        let image = PixelSize(width: 6, height: 8)
        #expect(rect.isInside(image))
        #expect(PixelRect(x: 0, y: 0, width: 6, height: 8).isInside(image))
        #expect(!PixelRect(x: 3, y: 3, width: 4, height: 5).isInside(image))
        #expect(!PixelRect(x: -1, y: 0, width: 2, height: 2).isInside(image))
        #expect(!PixelRect(x: 0, y: 4, width: 2, height: 5).isInside(image))
        #expect(!PixelRect(x: 0, y: 0, width: 0, height: 2).isInside(image), "an empty rectangle is no crop")
    }

    @Test func targetRatio() {
        #expect(CropTarget.aspect(width: 16, height: 9).ratio == 16.0 / 9.0)
        #expect(CropTarget.size(width: 400, height: 300).ratio == 4.0 / 3.0)
        #expect(CropTarget.aspect(width: 16, height: 9).description == "16:9")
        #expect(CropTarget.size(width: 400, height: 300).description == "400x300")
    }
}
