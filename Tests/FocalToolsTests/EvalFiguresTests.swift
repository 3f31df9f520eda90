import FocalCore
import FocalTools
import Foundation
import Testing

/// `EvalFigures`: the names `--require` accepts are the keys `focal eval --json` prints.
@Suite("EvalFigures") struct EvalFiguresTests {
    @Test("a run that measured every kind has exactly the documented names; counts stay integers")
    func names() throws {
        let labels = try JSONDecoder().decode(
            [EvalLabels.LabeledBox].self,
            from: Data(
                (#"[{"kind": "face", "x": 0, "y": 0, "w": 10, "h": 10}, {"kind": "cat", "x": 20, "y": 0, "w": 10, "h": 10},"#
                    + #" {"kind": "dog", "x": 40, "y": 0, "w": 10, "h": 10}, {"kind": "person", "x": 0, "y": 20, "w": 10, "h": 30}]"#).utf8))
        var detection = EvalDetection()
        // A face and a person found where labelled, a cat and a dog found far from theirs: precision
        // is measured for a kind only when something of that kind was found.
        let found: [Subject] = [
            Subject(kind: .face, box: Box(x: 0, y: 0, width: 10, height: 10)), Subject(kind: .person, box: Box(x: 0, y: 20, width: 10, height: 30)),
            Subject(kind: .cat, box: Box(x: 400, y: 400, width: 10, height: 10)), Subject(kind: .dog, box: Box(x: 300, y: 300, width: 10, height: 10)),
        ]
        detection.add(detected: found, labels: labels, exhaustive: ["face", "cat", "dog", "person"])
        var score = EvalScore()
        score.add(crop: PixelRect(x: 0, y: 0, width: 50, height: 50), imageSize: PixelSize(width: 50, height: 50), aspect: (1, 1), labels: labels)
        let figures = EvalFigures(images: 1, crops: 1, errors: 0, score: score, detection: detection, msPerImage: 12.5, msPerCrop: 3)
        #expect(Set(figures.document.keys) == Set(EvalFigures.names))
        if case let .count(images)? = figures.document["images"] { #expect(images == 1) } else { Issue.record("images is not a count") }
        #expect(figures.value("face_recall") == 1)
        #expect(figures.value("cat_recall") == 0)
        #expect(figures.value("dog_precision") == 0)
        #expect(figures.value("ms_per_image") == 12.5)
        #expect(figures.value("errors") == 0)
        #expect(figures.value("no_such_figure") == nil)
    }

    @Test("a run without labels of a kind leaves its recall and precision out")
    func partial() {
        let figures = EvalFigures(images: 0, crops: 0, errors: 0, score: EvalScore(), detection: EvalDetection(), msPerImage: 0, msPerCrop: 0)
        #expect(Set(figures.document.keys).isSubset(of: Set(EvalFigures.names)))
        #expect(figures.value("cat_precision") == nil)
        #expect(figures.value("all_kept") == 0)
    }
}
