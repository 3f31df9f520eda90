import FocalCore
import Testing

/// Heads inferred from people whose face the detector missed (docs/design.md §3, step 1).
@Suite struct HeadInferenceTests {
    let image = PixelSize(width: 3000, height: 2000)

    @Test func aPersonWithAFaceNeedsNoHead() {
        let person = subject(.person, 1000, 400, 400, 1400)
        let itsFace = face(1130, 420, 140, 170)
        #expect(HeadInference.heads(for: [person], faces: [itsFace]).isEmpty)
        #expect(HeadInference.heads(for: [person], faces: []).count == 1)
    }

    @Test func theHeadSitsAtTheTopOfTheBoxAndWeighsLess() throws {
        let standing = subject(.person, 1000, 400, 400, 1400, confidence: 0.8)
        let head = try #require(HeadInference.heads(for: [standing], faces: []).first)
        #expect(head.kind == .head)
        #expect(head.box.y == standing.box.y)
        #expect(abs(head.box.midX - standing.box.midX) < 1e-9)
        #expect(head.box.height >= 0.18 * standing.box.height && head.box.height <= 0.5 * standing.box.height)
        #expect(standing.box.contains(head.box))
        #expect(head.confidence == 0.8 * HeadInference.weight)
    }

    /// A group where one face was missed: the crop that holds every face and the missed head is
    /// chosen over one that holds the faces alone.
    @Test func aCropThatCanKeepEveryFaceAndHeadDoes() throws {
        // Two faces on the left, a person turned away on the right; 4:5 of 3000x2000 is 1600x2000.
        let faces = [face(200, 300, 150, 180), face(500, 320, 150, 180)]
        let turnedAway = subject(.person, 1300, 250, 380, 1500)
        let plan = try planCrop(3000, 2000, .aspect(width: 4, height: 5), faces + [turnedAway])
        #expect(plan.strategy == .faces)
        for face in faces { #expect(isWhole(face.box, in: plan.crop)) }
        let head = try #require(HeadInference.heads(for: [turnedAway], faces: faces).first)
        #expect(isWhole(head.box, in: plan.crop), "crop \(plan.crop) should keep the head \(head.box)")
    }

    /// When faces and heads cannot all fit, the faces win, and no head is cut through the middle
    /// when a placement avoids it.
    @Test func facesWinAndHeadsAreNotCutThroughTheMiddle() throws {
        let faces = [face(100, 300, 200, 240)]
        let far = subject(.person, 2500, 200, 400, 1600)
        let plan = try planCrop(3000, 2000, .aspect(width: 1, height: 1), faces + [far])
        #expect(isWhole(faces[0].box, in: plan.crop))
        let head = try #require(HeadInference.heads(for: [far], faces: faces).first)
        #expect(!isCutThroughMiddle(head.box, by: plan.crop))
    }

    /// With people alone (no face found), a person taller than the crop keeps its head.
    @Test func aTallPersonAloneKeepsTheHead() throws {
        let person = subject(.person, 1200, 100, 500, 1850)
        let plan = try planCrop(3000, 2000, .size(width: 1600, height: 900), [person])
        #expect(plan.strategy == .people)
        let head = try #require(HeadInference.heads(for: [person], faces: []).first)
        #expect(isWhole(head.box, in: plan.crop), "crop \(plan.crop) cuts the head \(head.box)")
    }
}
