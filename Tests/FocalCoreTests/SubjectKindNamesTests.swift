import FocalCore
import Testing

/// One vocabulary of kinds: a word means the same in `kinds(…)` and `redact(…)`.
@Suite struct SubjectKindNamesTests {
    @Test("every word both doors take names the same kinds in each", arguments: ["face", "faces", "cat", "cats", "dog", "dogs", "pet", "pets", "person", "persons", "people", "PEOPLE", "Pets"])
    func sameMeaningAtBothDoors(word: String) throws {
        let named = try #require(SubjectKindNames.kinds(named: word))
        let preference = try SubjectPreference(text: word)
        #expect(preference.ranks == [named], "kinds(\(word))")
        let redaction = try Redaction(text: "blur," + word)
        #expect(Set(redaction.kinds) == Set(named), "redact(blur,\(word))")
    }

    @Test("groups and plurals: pets are cats and dogs, people are persons; unknown words name nothing")
    func groups() {
        #expect(SubjectKindNames.kinds(named: "pets") == [.cat, .dog])
        #expect(SubjectKindNames.kinds(named: "people") == [.person])
        #expect(SubjectKindNames.kinds(named: "salient") == [.saliency])
        #expect(SubjectKindNames.kinds(named: "glitter") == nil)
        #expect(SubjectKindNames.groupWord(for: [.dog, .cat]) == "pet")
        #expect(Array(SubjectKindNames.words(for: Redaction.redactable).prefix(4)) == ["face", "person", "cat", "dog"])
        #expect(Array(SubjectKindNames.words(for: Redaction.redactable).suffix(2)) == ["pet", "people"])
        #expect(SubjectKindNames.kinds(named: "motorcycle") == [SubjectKind(rawValue: "motorbike")], "another word for a class")
    }

    @Test("each door still refuses what it cannot do: saliency is not redacted, a word is not named twice")
    func doorsKeepTheirLists() {
        #expect(throws: PlanningError.self) { try Redaction(text: "blur,saliency") }
        #expect(throws: PlanningError.self) { try Redaction(text: "blur,pets+cat") }
        #expect(throws: PlanningError.self) { try Redaction(text: "blur,glitter") }
        #expect(throws: PlanningError.self) { try SubjectPreference(text: "head") }
    }
}
