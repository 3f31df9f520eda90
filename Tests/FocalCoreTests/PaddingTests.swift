import Testing
import FocalCore

/// Padding around each subject (a fraction of its own size, or pixels) and the extra headroom
/// above faces. A 4000×3000 image at 4:3 has nowhere to move, so the region is what is checked.
@Suite struct PaddingTests {
    let box = Box(x: 1000, y: 1000, width: 200, height: 200)

    func region(_ kind: SubjectKind, _ box: Box, _ options: CropOptions) throws -> Box? {
        try planCrop(4000, 3000, .aspect(width: 4, height: 3), [Subject(kind: kind, box: box)], options).region
    }

    @Test func fractionPadsByTheSubjectsOwnSize() throws {
        // 20 % of 200 = 40 on every side; a face gets 25 % of 200 = 50 more above.
        #expect(close(try region(.face, box, CropOptions(padding: .fraction(0.2))), Box(x: 960, y: 910, width: 280, height: 330)))
        #expect(close(try region(.person, box, CropOptions(padding: .fraction(0.2))), Box(x: 960, y: 960, width: 280, height: 280)))
    }

    @Test func fractionUsesWidthSidewaysAndHeightUpAndDown() throws {
        let tall = Box(x: 1000, y: 1000, width: 100, height: 400)
        #expect(close(try region(.dog, tall, CropOptions(padding: .fraction(0.5))), Box(x: 950, y: 800, width: 200, height: 800)))
    }

    @Test func pixelsPadByAFixedAmount() throws {
        #expect(close(try region(.face, box, CropOptions(padding: .pixels(24))), Box(x: 976, y: 926, width: 248, height: 298)))
        #expect(close(try region(.cat, box, CropOptions(padding: .pixels(24))), Box(x: 976, y: 976, width: 248, height: 248)))
        let tiny = Box(x: 1000, y: 1000, width: 4, height: 4)
        #expect(close(try region(.saliency, tiny, CropOptions(padding: .pixels(100))), Box(x: 900, y: 900, width: 204, height: 204)))
    }

    @Test func defaultsAreTenPercentAndAQuarterOfHeadroom() throws {
        #expect(close(try region(.face, box, .default), Box(x: 980, y: 930, width: 240, height: 290)))
    }

    @Test func headroomOnlyGrowsTheTopOfFaces() throws {
        #expect(close(try region(.face, box, CropOptions(faceHeadroom: 0)), Box(x: 980, y: 980, width: 240, height: 240)))
        #expect(close(try region(.face, box, CropOptions(faceHeadroom: 1)), Box(x: 980, y: 780, width: 240, height: 440)))
        #expect(close(try region(.person, box, CropOptions(faceHeadroom: 1)), Box(x: 980, y: 980, width: 240, height: 240)))
    }

    @Test func zeroPaddingLeavesTheBoxAlone() throws {
        #expect(close(try region(.face, box, noPadding), box))
        #expect(close(try region(.face, box, CropOptions(padding: .pixels(0), faceHeadroom: 0)), box))
    }

    @Test func eachSubjectIsPaddedByItsOwnSize() throws {
        let small = subject(.person, 1000, 1000, 100, 100)
        let large = subject(.person, 2000, 1000, 400, 400)
        let plan = try planCrop(4000, 3000, .aspect(width: 4, height: 3), [small, large], CropOptions(padding: .fraction(0.5)))
        // small: 50 each side; large: 200 each side.
        #expect(close(plan.region, Box(x: 950, y: 800, width: 1650, height: 800)))
    }

    @Test func paddingStopsAtTheImageEdge() throws {
        let corner = Box(x: 10, y: 10, width: 200, height: 200)
        #expect(close(try region(.face, corner, CropOptions(padding: .fraction(0.5))), Box(x: 0, y: 0, width: 310, height: 310)))
        let farCorner = Box(x: 3900, y: 2900, width: 100, height: 100)
        #expect(close(try region(.person, farCorner, CropOptions(padding: .pixels(50))), Box(x: 3850, y: 2850, width: 150, height: 150)))
    }

    @Test func headroomLeavesMoreRoomAboveAFaceThanBelowIt() throws {
        // A tight zoom on a small output: the crop hugs the padded region, so the region's shape
        // shows in the crop.
        let face = Subject(kind: .face, box: box)
        let target = CropTarget.size(width: 100, height: 100)
        let withHeadroom = try planCrop(4000, 3000, target, [face], CropOptions(zoom: .subject(0.5))).crop
        let above = Int(box.y) - withHeadroom.y, below = withHeadroom.maxY - Int(box.maxY)
        #expect(above > below + 40)

        let without = try planCrop(4000, 3000, target, [face], CropOptions(faceHeadroom: 0, zoom: .subject(0.5))).crop
        let above0 = Int(box.y) - without.y, below0 = without.maxY - Int(box.maxY)
        #expect(abs(above0 - below0) <= 1)

        // Not for a person.
        let person = Subject(kind: .person, box: box)
        let body = try planCrop(4000, 3000, target, [person], CropOptions(faceHeadroom: 1, zoom: .subject(0.5))).crop
        #expect(abs((Int(box.y) - body.y) - (body.maxY - Int(box.maxY))) <= 1)
    }

    @Test func morePaddingMeansALargerZoomedCrop() throws {
        let face = Subject(kind: .face, box: box)
        var previous = 0
        for padding in [Padding.fraction(0), .fraction(0.1), .fraction(0.5), .pixels(150), .pixels(400)] {
            let crop = try planCrop(4000, 3000, .size(width: 100, height: 100), [face], CropOptions(padding: padding, zoom: .subject(0.8))).crop
            #expect(crop.width > previous, "padding \(padding)")
            previous = crop.width
        }
    }
}
