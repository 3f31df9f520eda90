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
        // 40 px: half its size on every side when certain; the least margin (3 px) when not.
        #expect(Self.same(hidden, [Box(x: 80, y: 80, width: 80, height: 80), Box(x: 297, y: 97, width: 46, height: 46)]))
        // Where faces are not hidden, the weak face is nothing to it either way.
        #expect(FindRedactions.hidden([weak], candidates: [], by: Redaction(style: .blur, kinds: [.person])).isEmpty)
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
