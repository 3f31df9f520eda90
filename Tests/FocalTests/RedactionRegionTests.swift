@testable import Focal
import FocalCore
import Testing

/// How redaction turns what was found into regions (`FindRedactions.hidden`) and where its tiles
/// fall (`FocalPipeline.tileOrigins`), without a detector.
@Suite struct RedactionRegionTests {
    static let redaction = Redaction(style: .blur)

    static func face(_ x: Double, _ y: Double, _ side: Double, _ confidence: Double = 0.9) -> Subject {
        Subject(kind: .face, box: Box(x: x, y: y, width: side, height: side), confidence: confidence)
    }

    /// Whether two lists of boxes are the same to a millionth of a pixel.
    static func same(_ a: [Box], _ b: [Box]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { p, q in
            abs(p.x - q.x) < 1e-6 && abs(p.y - q.y) < 1e-6 && abs(p.width - q.width) < 1e-6 && abs(p.height - q.height) < 1e-6
        }
    }

    @Test func aSureFaceIsGrownByItsMarginAndADogsOwnFaceIsLeftAlone() {
        let dog = Subject(kind: .dog, box: Box(x: 500, y: 0, width: 300, height: 300), confidence: 0.9)
        let person = Subject(kind: .person, box: Box(x: 0, y: 0, width: 300, height: 600), confidence: 0.9)
        let found = [Self.face(100, 100, 100), Self.face(600, 100, 100), dog, person]
        let hidden = FindRedactions.hidden(found, candidates: [], by: Self.redaction)
        // 100 px: 30 % on every side; the face on the dog (and on no person) is the dog's.
        #expect(Self.same(hidden, [Box(x: 70, y: 70, width: 160, height: 160)]))
        // A face on both a cat and a person is a person's.
        let cat = Subject(kind: .cat, box: Box(x: 180, y: 50, width: 200, height: 200), confidence: 0.9)
        let held = FindRedactions.hidden(found + [cat, Self.face(200, 100, 60)], candidates: [], by: Self.redaction)
        #expect(held.count == 2)
        // Kinds that are not hidden stay.
        let people = FindRedactions.hidden(found, candidates: [], by: Redaction(style: .blur, kinds: [.person]))
        #expect(Self.same(people, [Box(x: -90, y: -180, width: 480, height: 960)]))
    }

    @Test func candidatesAreGrownByTheirCertaintyAndWeakFacesComeOnlyThroughThem() {
        let weak = Self.face(100, 100, 40, 0.65)
        // A weak face of the stages is not hidden by itself: it is among the candidates, looked at.
        #expect(FindRedactions.hidden([weak], candidates: [], by: Self.redaction).isEmpty)
        let sure = RedactionCandidate(face: Self.face(100, 100, 40), certain: true)
        let unsure = RedactionCandidate(face: Self.face(300, 100, 40), certain: false)
        let hidden = FindRedactions.hidden([weak], candidates: [sure, unsure], by: Self.redaction)
        // 40 px: half its size on every side when certain; its own size, not grown, when not.
        #expect(Self.same(hidden, [Box(x: 80, y: 80, width: 80, height: 80), Box(x: 300, y: 100, width: 40, height: 40)]))
        // Where faces are not hidden, the weak face is nothing to it either way.
        #expect(FindRedactions.hidden([weak], candidates: [], by: Redaction(style: .blur, kinds: [.person])).isEmpty)
    }

    /// One person has one face: a candidate on the body of a person whose sure face is above it
    /// and more than three times its size (a button, a badge) is not hidden; one of a child's
    /// size (a face on a lap), one beside the face, and one on a person of its own are.
    @Test func aSmallCandidateOnABodyWhoseFaceIsFoundIsNotAFace() {
        let person = Subject(kind: .person, box: Box(x: 0, y: 0, width: 400, height: 800), confidence: 0.9)
        let face = Self.face(150, 50, 120)
        let button = RedactionCandidate(face: Self.face(200, 400, 20), certain: true)
        let child = RedactionCandidate(face: Self.face(180, 300, 60), certain: true)
        let beside = RedactionCandidate(face: Self.face(20, 300, 20), certain: true)
        let hidden = FindRedactions.hidden([person, face], candidates: [button, child, beside], by: Self.redaction)
        #expect(hidden.count == 3, "the face, the child's and the one beside the face's column")
        #expect(!hidden.contains { $0.contains(x: 210, y: 410) }, "the button is left alone")
        // A small face on a person of its own (a smaller box behind) is a face.
        let behind = Subject(kind: .person, box: Box(x: 190, y: 380, width: 40, height: 120), confidence: 0.8)
        #expect(FindRedactions.hidden([person, behind, face], candidates: [button], by: Self.redaction).count == 2)
        // With no sure face on the person, nothing says the candidate is not a face.
        #expect(FindRedactions.hidden([person], candidates: [button], by: Self.redaction).count == 1)
        // Lower than the chest (a child behind, between the legs) it is hidden.
        let low = RedactionCandidate(face: Self.face(200, 700, 20), certain: true)
        #expect(FindRedactions.hidden([person, face], candidates: [low], by: Self.redaction).count == 2)
    }

    /// An uncertain candidate overlapping a cat's box and within `Redaction.petReach` of it, on
    /// no person, is the cat's paw or fur; a confirmed one, one on a person, or one farther away
    /// is hidden. A candidate the animal look found on a dog is the dog's; a sure face never is.
    @Test func aCandidateBesideAPetIsThePets() {
        let cat = Subject(kind: .cat, box: Box(x: 100, y: 100, width: 400, height: 300), confidence: 0.9)
        let paw = RedactionCandidate(face: Self.face(490, 200, 30), certain: false)
        let far = RedactionCandidate(face: Self.face(700, 200, 30), certain: false)
        #expect(FindRedactions.hidden([cat], candidates: [paw, far], by: Self.redaction).count == 1)
        let confirmed = RedactionCandidate(face: Self.face(490, 200, 30), certain: true)
        #expect(FindRedactions.hidden([cat], candidates: [confirmed], by: Self.redaction).count == 1)
        let person = Subject(kind: .person, box: Box(x: 480, y: 100, width: 200, height: 400), confidence: 0.9)
        #expect(FindRedactions.hidden([cat, person], candidates: [paw], by: Self.redaction).count == 1)
        // The animal look: a dog found around a lone candidate makes it the dog's, not a sure face.
        let dog = Subject(kind: .dog, box: Box(x: 600, y: 500, width: 200, height: 200), confidence: 0.5)
        let lone = RedactionCandidate(face: Self.face(680, 560, 40), certain: true)
        #expect(FindRedactions.hidden([], candidates: [lone], animals: [dog], by: Self.redaction).isEmpty)
        #expect(FindRedactions.hidden([Self.face(680, 560, 40)], candidates: [], animals: [dog], by: Self.redaction).count == 1)
    }

    @Test func tilesCoverTheImageOverlappingBySixths() {
        // A small photo: 2 × 2 tiles of 7/12 of each side, as before the grid grew.
        let small = FocalPipeline.tileOrigins(PixelSize(width: 500, height: 300), tile: PixelSize(width: 292, height: 176))
        #expect(small.map { [$0.0, $0.1] } == [[0, 0], [208, 0], [0, 124], [208, 124]])
        // A 6 MP photo in tiles of the proxy's side: 3 across, 2 down, the last at the far edge.
        let large = FocalPipeline.tileOrigins(PixelSize(width: 3000, height: 2000), tile: PixelSize(width: 1280, height: 1280))
        #expect(Set(large.map(\.0)) == [0, 860, 1720] && Set(large.map(\.1)) == [0, 720])
        for size in [PixelSize(width: 3840, height: 2880), PixelSize(width: 1281, height: 40), PixelSize(width: 9000, height: 1300)] {
            let tile = PixelSize(width: min(size.width, 1280), height: min(size.height, 1280))
            let xs = Set(FocalPipeline.tileOrigins(size, tile: tile).map(\.0)).sorted()
            #expect(xs.first == 0 && xs.last == size.width - tile.width, "\(size)")
            for (a, b) in zip(xs, xs.dropFirst()) { #expect(b - a <= tile.width * 5 / 6, "\(size): tiles at \(a) and \(b) overlap by less than a sixth") }
        }
        // One tile when the image is no larger than it.
        #expect(FocalPipeline.tileOrigins(PixelSize(width: 100, height: 80), tile: PixelSize(width: 100, height: 80)).count == 1)
    }
}
