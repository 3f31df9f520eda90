import FocalTools
import Testing

/// `EvalRequirement`: `focal eval --require`'s `NAME OP NUMBER`, read and compared.
@Suite("EvalRequirement") struct EvalRequirementTests {
    static let known = ["all_kept", "pet_kept", "errors", "false_pets"]

    @Test("reads each operator, with or without spaces", arguments: [
        ("all_kept>=0.97", "all_kept", EvalRequirement.Comparison.atLeast, 0.97),
        ("pet_kept <= 0.5", "pet_kept", .atMost, 0.5),
        ("errors==0", "errors", .equal, 0),
        (" false_pets > -1 ", "false_pets", .greater, -1),
        ("all_kept<1e0", "all_kept", .less, 1),
    ])
    func parses(text: String, name: String, comparison: EvalRequirement.Comparison, bound: Double) throws {
        let requirement = try EvalRequirement(parsing: text, known: Self.known)
        #expect(requirement == EvalRequirement(name: name, comparison: comparison, bound: bound))
    }

    @Test("a list reads in order")
    func list() throws {
        let list = try EvalRequirement.list(parsing: "all_kept>=0.97, pet_kept>=0.80,false_pets==0,errors==0", known: Self.known)
        #expect(list.map(\.description) == ["all_kept >= 0.97", "pet_kept >= 0.8", "false_pets == 0", "errors == 0"])
    }

    @Test("an unknown name is refused, naming every known one")
    func unknownName() {
        #expect {
            try EvalRequirement(parsing: "all_kep>=0.97", known: Self.known)
        } throws: { error in
            let text = "\(error)"
            return error is EvalRequirement.ParseError && text.contains("all_kep")
                && text.contains("all_kept, errors, false_pets, pet_kept")
        }
    }

    @Test("malformed text is refused", arguments: [
        "all_kept", "all_kept 0.97", "all_kept=0.97", "all_kept=>0.97", "all_kept>>0.97", "all_kept!=0", ">=0.97",
        "all_kept>=", "all_kept>=high", "all_kept>=nan", "all_kept>=inf", "all_kept>=0.9 7",
    ])
    func malformed(text: String) {
        #expect(throws: EvalRequirement.ParseError.self) { try EvalRequirement(parsing: text, known: Self.known) }
    }

    @Test("an empty list or an empty item is refused", arguments: ["", " ", ",", "all_kept>=0.97,,errors==0", "errors==0,"])
    func emptyItems(text: String) {
        #expect(throws: EvalRequirement.ParseError.self) { try EvalRequirement.list(parsing: text, known: Self.known) }
    }

    @Test("compares; a value equal to the bound up to rounding counts as equal")
    func compares() throws {
        func met(_ text: String, _ value: Double) throws -> Bool {
            try EvalRequirement(parsing: text, known: Self.known).isMet(by: value)
        }
        #expect(try met("all_kept>=0.97", 0.98))
        #expect(try met("all_kept>=0.97", 0.97))
        #expect(try !met("all_kept>=0.97", 0.969))
        // 0.1 + 0.7 is 0.7999999999999999: still "at least 0.8", and not "more than 0.8".
        #expect(try met("pet_kept>=0.8", 0.1 + 0.7))
        #expect(try !met("pet_kept>0.8", 0.1 + 0.7))
        #expect(try !met("pet_kept<0.8", 0.1 + 0.7))
        #expect(try met("pet_kept<=0.8", 0.8000000000001 - 1e-13))
        #expect(try met("pet_kept>0.8", 0.81))
        #expect(try met("pet_kept<0.8", 0.79))
        #expect(try met("errors==0", 0))
        #expect(try !met("errors==0", 1))
        #expect(try !met("errors<=2", 3))
        #expect(try met("errors<=2", 2))
        #expect(try !met("all_kept>=0", .nan))
    }
}
