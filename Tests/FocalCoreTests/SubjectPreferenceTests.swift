import FocalCore
import Testing

/// `kinds(…)`: which kinds count and in which order.
@Suite struct SubjectPreferenceTests {
    let face = Subject(kind: .face, box: Box(x: 100, y: 100, width: 40, height: 40), confidence: 0.9)
    let dog = Subject(kind: .dog, box: Box(x: 400, y: 300, width: 120, height: 100), confidence: 0.9)
    let person = Subject(kind: .person, box: Box(x: 80, y: 80, width: 100, height: 300), confidence: 0.9)
    let salient = Subject(kind: .saliency, box: Box(x: 600, y: 50, width: 80, height: 80), confidence: 0.9)

    @Test func spellingsAndTheirCanonicalText() throws {
        let cases = [
            ("face", "face"), ("Faces", "face"), ("pet+face", "pet+face"), ("pets + faces", "pet+face"), ("cats+faces+saliency", "cat+face+saliency"),
            ("no-person", "no-person"), ("-people", "no-person"), ("no-face+no-dog", "no-face+no-dog"),
        ]
        for (text, canonical) in cases { #expect(try SubjectPreference(text: text).text == canonical, "\(text)") }
        for bad in ["", "glitter", "face+face", "pet+dog", "face+no-person", "+", "face+", String(repeating: "face+", count: 9) + "dog"] {
            #expect(throws: PlanningError.self, "\(bad)") { try SubjectPreference(text: bad) }
        }
    }

    @Test func theOrderDecidesWhichKindIsChosen() throws {
        let all = [face, dog, person, salient]
        func chosen(_ text: String?) throws -> Set<SubjectKind> {
            Set(SubjectSelection.choose(all, preference: try text.map(SubjectPreference.init(text:))).map(\.kind))
        }
        #expect(try chosen(nil) == [.face], "the usual order: faces first")
        #expect(try chosen("pet+face") == [.dog])
        #expect(try chosen("no-face") == [.dog])
        #expect(try chosen("person") == [.person])
        #expect(try chosen("saliency+face") == [.saliency])
        #expect(try chosen("no-face+no-dog+no-cat") == [.person])
        // Only what is named counts: nothing else, even when nothing named is there.
        #expect(SubjectSelection.choose([dog, salient], preference: try SubjectPreference(text: "face")).isEmpty)
        // A dominant pet wins over faces in the usual order, not when faces are put first.
        let big = Subject(kind: .dog, box: Box(x: 200, y: 0, width: 900, height: 900), confidence: 0.9)
        #expect(Set(SubjectSelection.choose([face, big]).map(\.kind)) == [.dog])
        #expect(Set(SubjectSelection.choose([face, big], preference: try SubjectPreference(text: "face+pet")).map(\.kind)) == [.face])
    }

    @Test func fractionsOfTheImageAreReadAndPlannedAsPixelsWouldBe() throws {
        #expect(try ManualOverride(parsingFocus: "0.5,0.3") == .relativeFocus(x: 0.5, y: 0.3))
        #expect(try ManualOverride(parsingFocus: "0.25x0.1:0.6x0.5") == .relativeRegion(Box(x: 0.25, y: 0.1, width: 0.35, height: 0.4)))
        #expect(try ManualOverride(parsingFocus: "1,1") == .focus(x: 1, y: 1), "whole numbers are pixels")
        #expect(try ManualOverride(parsingFocus: "0.5,2") == .focus(x: 0.5, y: 2), "a value over 1 makes them pixels")
        #expect(try ManualOverride(parsingFocus: "0x0.5:1x1").focusText == "0.0x0.5:1.0x1.0", "fractions print with a point")
        #expect(throws: PlanningError.self) { try ManualOverride(parsingFocus: "0.6x0.5:0.2x0.9") }
        // On a 1000×800 image, the same crop as the region in pixels; on half the size, half of it.
        for (width, height) in [(1000, 800), (500, 400)] {
            let size = PixelSize(width: width, height: height)
            func plan(_ override: ManualOverride) throws -> CropPlan {
                try CropPlanner.plan(imageSize: size, target: .aspect(width: 1, height: 1), subjects: [], options: CropOptions(override: override))
            }
            let relative = try plan(ManualOverride(parsingFocus: "0.25x0.1:0.6x0.5"))
            let pixels = try plan(.region(PixelRect(x: width / 4, y: height / 10, width: width * 35 / 100, height: height * 4 / 10)))
            #expect(relative.crop == pixels.crop, "\(size)")
        }
    }
}
