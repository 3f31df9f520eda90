import Foundation
import FocalTestSupport
import Testing

/// `focal eval --require`: the scores, one line per requirement, and an exit code a CI script can
/// gate on (0 met, 2 not met, 64 a requirement that does not read).
@Suite struct EvalRequireCLITests {
    /// A labelled folder of one photo: the astronaut, her face drawn by hand (as in CLITests.eval).
    static func labelledFolder() throws -> Scratch {
        let scratch = try Scratch()
        try FileManager.default.copyItem(atPath: Checkout.fixture("astronaut.png"), toPath: scratch.file("astronaut.png"))
        let labels = #"{"images": {"astronaut.png": {"width": 512, "height": 512, "boxes": [{"kind": "face", "x": 170, "y": 50, "w": 110, "h": 140}]}}}"#
        try Data(labels.utf8).write(to: URL(fileURLWithPath: scratch.file("labels.json")))
        return scratch
    }

    @Test("requirements that are met print one line each after the scores and exit 0")
    func met() async throws {
        let scratch = try Self.labelledFolder()
        defer { scratch.remove() }
        let run = try await Run(["eval", scratch.path, "--require", "all_kept>=0.97, face_kept==1,head_cut<=0,errors==0,aspect_errors==0"])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.lines.first?.hasPrefix("images") == true)
        let required = run.lines.filter { $0.hasPrefix("required") }
        #expect(required == [
            "required    all_kept >= 0.97: met (1)", "required    face_kept == 1: met (1)", "required    head_cut <= 0: met (0)",
            "required    errors == 0: met (0)", "required    aspect_errors == 0: met (0)",
        ])
    }

    @Test("a requirement not met is printed as such with its value, and the exit code is 2")
    func notMet() async throws {
        let scratch = try Self.labelledFolder()
        defer { scratch.remove() }
        let run = try await Run(["eval", scratch.path, "--json", "--require", "face_kept>1,errors==0,cat_precision>=0"])
        #expect(run.status == 2, "\(run.stdout)\n\(run.stderr)")
        let objects = run.objects
        #expect(objects.count == 4)
        #expect(objects.first?["all_kept"] as? Double == 1)
        let lines = objects.dropFirst()
        #expect(lines.map { $0["requirement"] as? String } == ["face_kept > 1", "errors == 0", "cat_precision >= 0"])
        #expect(lines.map { $0["met"] as? Bool } == [false, true, false])
        #expect(lines.first?["value"] as? Double == 1)
        // No cat is labelled exhaustively on this folder: the figure is absent, so not met.
        #expect(lines.last?["value"] is NSNull)
    }

    @Test("an unknown figure or a malformed requirement is a usage error (64) before any work", arguments: [
        ("all_kep>=0.97", "pet_recall"), ("all_kept=0.97", "all_kept=0.97"), ("all_kept>=", "finite number"),
    ])
    func usage(requirement: String, mention: String) async throws {
        let scratch = try Self.labelledFolder()
        defer { scratch.remove() }
        let run = try await Run(["eval", scratch.path, "--require", requirement])
        #expect(run.status == 64)
        #expect(run.stderr.contains(mention), "\(run.stderr)")
        #expect(!run.stdout.contains("all_kept"))
    }
}
