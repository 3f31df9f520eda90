import Focal
import Foundation
import FocalTestSupport
import Testing

@Suite struct SubjectFileTests {
    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("focal-subjects-\(UUID()).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("an array applies to every image")
    func array() throws {
        let path = try write(#"[{"kind": "dog", "x": 10, "y": 20, "width": 30, "height": 40}]"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SubjectFile(path: path)
        let subjects = file.subjects(for: "any.jpg")
        #expect(subjects == [Subject(kind: .dog, box: Box(x: 10, y: 20, width: 30, height: 40), confidence: 1)])
    }

    @Test("an object maps names (or their last path component) to subjects")
    func byName() throws {
        let path = try write(#"{"a.jpg": [{"kind": "face", "x": 1, "y": 2, "width": 3, "height": 4, "confidence": 0.5}]}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SubjectFile(path: path)
        #expect(file.subjects(for: "photos/a.jpg").first?.confidence == 0.5)
        #expect(file.subjects(for: "b.jpg").isEmpty)
    }

    @Test("focal detect --json lines are read back")
    func detectLines() throws {
        let path = try write("""
            {"input": "x/a.png", "width": 10, "height": 10, "subjects": [{"kind": "cat", "x": 0, "y": 0, "width": 5, "height": 5, "confidence": 0.9}]}
            {"input": "b.png", "width": 10, "height": 10, "subjects": []}
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SubjectFile(path: path)
        #expect(file.subjects(for: "x/a.png").map(\.kind) == [.cat])
    }

    @Test("a malformed file is refused with the line and the expected form")
    func malformed() throws {
        let path = try write("{\"kind\": \"face\"\nnot json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DetectionError.self) { try SubjectFile(path: path) }
        #expect(error?.code == .requestInvalid)
        #expect(error?.message.contains("line 1") == true)
    }

    @Test("a kind Focal does not know (a typo, a wrong case) is refused, naming it and the kinds it knows", arguments: ["dgo", "Face"])
    func unknownKind(kind: String) throws {
        let path = try write(#"[{"kind": "\#(kind)", "x": 10, "y": 20, "width": 30, "height": 40}]"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let error = #expect(throws: DetectionError.self) { try SubjectFile(path: path) }
        #expect(error?.code == .requestInvalid)
        #expect(error?.message.contains("'\(kind)'") == true)
        #expect(error?.message.contains("face, head, cat, dog, person, saliency") == true)
    }

    @Test("subjects are clipped to the image and change the cache identity with the file")
    func clipping() async throws {
        let path = try write(#"[{"kind": "dog", "x": -50, "y": 100, "width": 200, "height": 1000}]"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SubjectFile(path: path)
        let found = try await file.detect(request(for: "coffee.png"))
        #expect(found.first?.box == Box(x: 0, y: 100, width: 150, height: 300))
        let other = try write(#"[{"kind": "dog", "x": 0, "y": 0, "width": 1, "height": 1}]"#)
        defer { try? FileManager.default.removeItem(atPath: other) }
        #expect(try SubjectFile(path: other).identifier != file.identifier)
    }
}
