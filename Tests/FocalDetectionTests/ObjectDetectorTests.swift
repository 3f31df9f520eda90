import Focal
import FocalTestSupport
import Testing

@Suite struct ObjectDetectorTests {
    let detector: ObjectDetector

    init() throws { detector = try ObjectDetector(models: models) }

    @Test("the cat on the chair is a cat, and covers most of the photo")
    func cat() async throws {
        let req = try request(for: "chelsea.png")
        let found = try await detector.detect(req)
        let cats = found.filter { $0.kind == .cat }
        #expect(cats.count == 1, "\(found)")
        #expect(!found.contains { $0.kind == .dog })
        if let cat = cats.first {
            #expect(cat.box.area > 0.4 * Double(req.imageSize.area))
        }
    }

    @Test("the astronaut is a person; no animal anywhere among the people and things")
    func person() async throws {
        let astronaut = try await detector.detect(request(for: "astronaut.png"))
        #expect(astronaut.contains { $0.kind == .person })
        for name in ["astronaut.png", "grace_hopper.jpg", "coffee.png"] {
            let found = try await detector.detect(request(for: name))
            #expect(!found.contains { $0.kind == .cat || $0.kind == .dog }, "\(name): \(found)")
        }
    }
}
