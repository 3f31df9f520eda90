import Testing
import FocalCore

/// Which kind of subject decides the crop: faces, then cats and dogs, then people, then saliency;
/// and the per-kind confidence threshold.
///
/// The image is 6000×4000 and the target 1:1, so the 4000×4000 crop can slide 2000 pixels
/// sideways: each kind sits at a different place, and the crop shows which one it followed.
@Suite struct SubjectPriorityTests {
    let image = PixelSize(width: 6000, height: 4000)
    let square = CropTarget.aspect(width: 1, height: 1)

    // Far left, far right, centre, bottom left: no box holds another's centre, no pet is far
    // larger than the face.
    let theFace = face(150, 1800, 300, 300)
    let cat = subject(.cat, 5500, 400, 400, 400)
    let dog = subject(.dog, 5300, 3000, 500, 400)
    let person = subject(.person, 2700, 300, 600, 3400)
    let salient = subject(.saliency, 5600, 2000, 300, 300)

    func planned(_ subjects: [Subject], _ options: CropOptions = .default) throws -> CropPlan {
        try CropPlanner.plan(imageSize: image, target: square, subjects: subjects, options: options)
    }

    @Test func facesBeatEverythingElse() throws {
        let plan = try planned([salient, person, dog, cat, theFace])
        #expect(plan.strategy == .faces)
        // The person holds no face: its head was missed, so it comes along with the face.
        let head = try #require(HeadInference.heads(for: [person], faces: [theFace]).first)
        #expect(plan.subjects == [theFace, head])
        #expect(isWhole(theFace.box, in: plan.crop))
        #expect(isWhole(head.box, in: plan.crop))
        #expect(plan.crop.x == 0, "the crop follows the face to the left edge")
    }

    @Test func catsAndDogsBeatPeopleAndSaliency() throws {
        let plan = try planned([salient, person, dog, cat])
        #expect(plan.strategy == .pets)
        #expect(Set(plan.subjects) == [cat, dog])
        #expect(isWhole(cat.box, in: plan.crop) && isWhole(dog.box, in: plan.crop))
        #expect(plan.crop.x == 2000, "the crop follows the pets to the right edge")
    }

    @Test(arguments: [SubjectKind.cat, .dog])
    func oneCatOrDogIsEnough(kind: SubjectKind) throws {
        let pet = subject(kind, 5400, 1800, 400, 400)
        let plan = try planned([person, pet, salient])
        #expect(plan.strategy == .pets)
        #expect(plan.subjects == [pet])
    }

    @Test func peopleBeatSaliency() throws {
        let plan = try planned([salient, person])
        #expect(plan.strategy == .people)
        #expect(plan.subjects == [person])
        #expect(isWhole(person.box, in: plan.crop))
        #expect(plan.crop.x == 1000, "centred on the person in the middle")
    }

    @Test func saliencyIsTheLastResort() throws {
        let plan = try planned([salient])
        #expect(plan.strategy == .saliency)
        #expect(plan.subjects == [salient])
        #expect(plan.crop.x == 2000)
    }

    @Test func theOrderOfTheListDoesNotMatter() throws {
        let forward = try planned([theFace, cat, dog, person, salient])
        let backward = try planned([salient, person, dog, cat, theFace])
        #expect(forward == backward)
    }

    @Test func subjectsWithEmptyBoxesAreIgnored() throws {
        let empty = [face(150, 1800, 0, 300), face(150, 1800, 300, 0), subject(.cat, 5500, 400, 0, 0)]
        let plan = try planned(empty + [person])
        #expect(plan.strategy == .people)
        #expect(plan.subjects == [person])
    }

    @Test func facesBelowTheirThresholdFallBackToPets() throws {
        let weakFace = face(150, 1800, 300, 300, confidence: 0.3)
        let plan = try planned([weakFace, cat, person], CropOptions(minimumConfidence: [.face: 0.5]))
        #expect(plan.strategy == .pets)
        #expect(plan.subjects == [cat])
        // Without the threshold the same face wins.
        #expect(try planned([weakFace, cat, person]).strategy == .faces)
    }

    @Test func aSubjectAtExactlyTheThresholdIsKept() throws {
        let plan = try planned([face(150, 1800, 300, 300, confidence: 0.5), cat], CropOptions(minimumConfidence: [.face: 0.5]))
        #expect(plan.strategy == .faces)
    }

    @Test func thresholdsApplyPerKind() throws {
        let options = CropOptions(minimumConfidence: [.cat: 0.9, .dog: 0.9])
        let faceAt06 = face(150, 1800, 300, 300, confidence: 0.6)
        let cat06 = subject(.cat, 5500, 400, 400, 400, confidence: 0.6)
        // A face at 0.6 is not held back by the pets' threshold...
        #expect(try planned([faceAt06, cat06], options).strategy == .faces)
        // ...while a cat at 0.6 is, so the person wins.
        let plan = try planned([cat06, person], options)
        #expect(plan.strategy == .people)
        #expect(plan.subjects == [person])
    }

    @Test func weakFacesAreDroppedOneByOne() throws {
        let strong = face(5500, 1800, 300, 300, confidence: 0.9)
        let weak = face(150, 1800, 300, 300, confidence: 0.2)
        let plan = try planned([weak, strong], CropOptions(minimumConfidence: [.face: 0.5]))
        #expect(plan.subjects == [strong])
        #expect(plan.crop.x == 2000, "the crop follows the strong face only")
    }

    @Test func everyThresholdUnmetGivesTheCentreCrop() throws {
        let all = [theFace, cat, dog, person, salient]
        let options = CropOptions(minimumConfidence: Dictionary(uniqueKeysWithValues: SubjectKind.allCases.map { ($0, 1.01) }))
        let plan = try planned(all, options)
        #expect(plan.strategy == .center)
        #expect(plan.crop.x == 1000)
    }
}
