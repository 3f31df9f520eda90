import Testing
import FocalCore

/// The scheme picks among the subjects of the winning kind: all (their union), largest, smallest.
@Suite struct BoundingSchemeTests {
    // Three faces in a row on a 6000×4000 image; a 1:1 crop (4000×4000) can slide 2000 pixels.
    let small = face(500, 1500, 100, 100)
    let medium = face(2000, 1500, 200, 200)
    let large = face(4000, 1500, 400, 400)
    var faces: [Subject] { [medium, large, small] }

    func planned(_ scheme: BoundingScheme) throws -> CropPlan {
        try planCrop(6000, 4000, .aspect(width: 1, height: 1), faces, CropOptions(scheme: scheme))
    }

    @Test func allFramesTheUnionOfEverySubject() throws {
        let plan = try planned(.all)
        #expect(plan.subjects == faces, "every face, in the order given")
        // Padded by 10 % on each side plus 25 % headroom: x from 490 to 4440, y from 1360 to 1940.
        #expect(close(plan.region, Box(x: 490, y: 1360, width: 3950, height: 580)))
        for face in faces { #expect(isWhole(face.box, in: plan.crop)) }
        #expect(plan.crop.x == 465, "centred on the union (its middle is at 2465)")
    }

    @Test func largestFramesOnlyTheLargestSubject() throws {
        let plan = try planned(.largest)
        #expect(plan.subjects == [large])
        #expect(close(plan.region, Box(x: 3960, y: 1360, width: 480, height: 580)))
        #expect(isWhole(large.box, in: plan.crop))
        #expect(plan.crop.x == 2000)
        #expect(!isWhole(small.box, in: plan.crop), "the small face is out of reach of this crop")
    }

    @Test func smallestFramesOnlyTheSmallestSubject() throws {
        let plan = try planned(.smallest)
        #expect(plan.subjects == [small])
        #expect(close(plan.region, Box(x: 490, y: 1465, width: 120, height: 145)))
        #expect(isWhole(small.box, in: plan.crop))
        #expect(plan.crop.x == 0)
        #expect(!isWhole(large.box, in: plan.crop))
    }

    @Test func largestAndSmallestCompareArea() throws {
        // Tall-thin (50×1000 = 50 000) against square (300×300 = 90 000): area decides, not a side.
        let thin = subject(.person, 100, 100, 50, 1000)
        let square = subject(.person, 3000, 100, 300, 300)
        let largest = try planCrop(6000, 4000, .aspect(width: 1, height: 1), [thin, square], CropOptions(scheme: .largest))
        let smallest = try planCrop(6000, 4000, .aspect(width: 1, height: 1), [thin, square], CropOptions(scheme: .smallest))
        #expect(largest.subjects == [square])
        #expect(smallest.subjects == [thin])
    }

    @Test(arguments: [BoundingScheme.largest, .smallest])
    func aSchemeThatPicksOneAlwaysPicksExactlyOne(scheme: BoundingScheme) throws {
        let twins = [face(100, 100, 200, 200), face(3000, 100, 200, 200), face(5000, 100, 200, 200)]
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), twins, CropOptions(scheme: scheme))
        #expect(plan.subjects.count == 1)
        #expect(plan.subjects.allSatisfy { twins.contains($0) })
    }

    @Test(arguments: BoundingScheme.allCases)
    func theSchemeOnlyChoosesAmongTheWinningKind(scheme: BoundingScheme) throws {
        // A huge person does not count as "largest" while faces are present.
        let person = subject(.person, 3000, 0, 2000, 3900)
        let plan = try planCrop(6000, 4000, .aspect(width: 1, height: 1), [person] + faces, CropOptions(scheme: scheme))
        #expect(plan.strategy == .faces)
        #expect(!plan.subjects.contains(person))
    }
}
