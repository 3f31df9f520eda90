import Focal
import Foundation
import FocalTestSupport
import Testing

@Suite struct CLITests {
    @Test("--version prints FocalVersion.string alone and exits 0")
    func version() async throws {
        let run = try await Run(["--version"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == FocalVersion.string + "\n")
    }

    @Test("crop --json prints one object per input with the documented fields, and writes nothing without -o")
    func json() async throws {
        let run = try await Run(["crop", Checkout.fixture("astronaut.png"), Checkout.fixture("chelsea.png"), "--aspect", "16:9", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = run.objects
        #expect(objects.count == 2)
        let first = try #require(objects.first)
        #expect(first["input"] as? String == Checkout.fixture("astronaut.png"))
        #expect(first["width"] as? Int == 512 && first["height"] as? Int == 512)
        #expect(first["strategy"] as? String == "faces")
        let crop = try #require(first["crop"] as? [String: Int])
        #expect(crop["width"] == 512 && crop["height"] == 288)
        let subjects = try #require(first["subjects"] as? [[String: Any]])
        #expect(subjects.contains { $0["kind"] as? String == "face" && $0["confidence"] is Double })
        #expect(first["output"] is NSNull)
        #expect(objects.last?["strategy"] as? String == "pets")
    }

    @Test("crop takes every spelling of every crop option the table lists, and prints the canonical one")
    func everyCropOptionSpelling() async throws {
        let most = CropOption.all.map(\.examples.count).max() ?? 0
        for index in 0..<most {
            var arguments = ["crop", Checkout.fixture("coffee.png"), "--size", "64x64", "--json"]
            var expected: [String: String] = [:]
            for option in CropOption.all {
                let text = option.examples[min(index, option.examples.count - 1)]
                arguments += ["--\(option.name)", text]
                var options = FocalOptions()
                try option.apply(text, to: &options)
                expected[option.name] = option.text(of: options)
            }
            let run = try await Run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.objects.first?["options"] as? [String: String] == expected, "\(arguments)")
        }
        for option in CropOption.all {
            let run = try await Run(["crop", Checkout.fixture("coffee.png"), "--size", "64x64", "--json", "--\(option.name)", "nonsense"])
            #expect(run.status == 64, "--\(option.name) nonsense")
            #expect(run.stderr.contains("--\(option.name)"), "\(run.stderr)")
        }
    }

    @Test("a bad input reports {input, error}, the others still run, and the exit code is 1")
    func badInput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data("this is not an image".utf8).write(to: URL(fileURLWithPath: scratch.file("notes.jpg")))
        let run = try await Run([
            "crop", scratch.file("notes.jpg"), Checkout.fixture("coffee.png"), "--size", "100x100", "--json", "-o", scratch.file("out"),
        ])
        #expect(run.status == 1)
        let objects = run.objects
        #expect(objects.count == 2)
        #expect(objects.first?["input"] as? String == scratch.file("notes.jpg"))
        #expect((objects.first?["error"] as? String)?.contains("not an image") == true)
        #expect(run.stderr.contains("notes.jpg"))
        #expect(objects.last?["output"] as? String == scratch.file("out/coffee.png"))
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/coffee.png")))
    }

    @Test("a folder expands to its images; -o DIR gets one output and one overlay each, and no temporary files")
    func folder() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let folder = Checkout.root.appendingPathComponent("Fixtures").path
        let photos = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        #expect(photos.count >= 4, "make fixtures fetches the sample photos")
        let run = try await Run(["crop", folder, "--size", "120x80", "-o", scratch.path, "--debug", "--format", "jpeg"])
        #expect(run.status == 0, "\(run.stderr)")
        let stems = photos.map { ($0 as NSString).deletingPathExtension }
        #expect(scratch.contents == stems.flatMap { [$0 + ".debug.png", $0 + ".jpg"] }.sorted())
        let overlay = try Data(contentsOf: URL(fileURLWithPath: scratch.file("astronaut.debug.png")))
        #expect(Array(overlay.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
    }

    @Test("-o FILE writes that file in the format its extension names")
    func singleFile() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "64x64", "-o", scratch.file("avatar.webp")])
        #expect(run.status == 0, "\(run.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.file("avatar.webp")))
        #expect(String(decoding: data[8..<12], as: UTF8.self) == "WEBP")
    }

    @Test("usage mistakes exit non-zero with a message that says what to do", arguments: [
        (["crop", "x.jpg"], "--size"),
        (["crop", "x.jpg", "--size", "10x10", "--aspect", "1:1"], "exactly one"),
        (["crop", "x.jpg", "--size", "0x10"], "positive"),
        (["crop", "x.jpg", "--aspect", "1:1", "--padding", "lots"], "padding"),
        (["crop", "x.jpg", "--aspect", "1:1", "--zoom", "subject:2"], "zoom"),
        (["crop", "x.jpg", "--aspect", "1:1", "--quality", "best"], "quality"),
        (["crop", "x.jpg", "--aspect", "1:1", "--debug"], "-o"),
        // The bounds ContactSheet itself keeps a library caller's row height within.
        (["sheet", "x.jpg", "-o", "s.png", "--row-height", "2000"], "between 32 and 1024"),
        (["sheet", "x.jpg", "-o", "s.png", "--row-height", "31"], "between 32 and 1024"),
    ])
    func usage(arguments: [String], mention: String) async throws {
        let run = try await Run(arguments)
        #expect(run.status != 0)
        #expect(run.stderr.contains(mention), "\(run.stderr)")
    }

    @Test("detect --json lines feed crop --subjects")
    func subjectsRoundTrip() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let detect = try await Run(["detect", Checkout.fixture("coffee.png"), "--json"])
        #expect(detect.status == 0)
        // Replace what was found by a dog in the right third, as a user's own service might.
        let line = #"{"input": "coffee.png", "subjects": [{"kind": "dog", "x": 450, "y": 100, "width": 140, "height": 140}]}"#
        try Data(line.utf8).write(to: URL(fileURLWithPath: scratch.file("subjects.jsonl")))
        let crop = try await Run(["crop", Checkout.fixture("coffee.png"), "--aspect", "1:1", "--json", "--subjects", scratch.file("subjects.jsonl")])
        #expect(crop.status == 0, "\(crop.stderr)")
        let object = try #require(crop.objects.first)
        #expect(object["strategy"] as? String == "pets")
        #expect((object["crop"] as? [String: Int])?["x"] == 200)
        #expect(detect.objects.first?["subjects"] is [[String: Any]])
    }

    @Test("eval prints the four scores on a labelled folder")
    func eval() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let source = Checkout.fixture("astronaut.png")
        try FileManager.default.copyItem(atPath: source, toPath: scratch.file("astronaut.png"))
        // The astronaut's face as drawn by hand from the photo: hairline to chin, ear to ear.
        let labels = #"{"images": {"astronaut.png": {"width": 512, "height": 512, "boxes": [{"kind": "face", "x": 170, "y": 50, "w": 110, "h": 140}]}}}"#
        try Data(labels.utf8).write(to: URL(fileURLWithPath: scratch.file("labels.json")))
        let run = try await Run(["eval", scratch.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let scores = try #require(run.objects.first)
        #expect(scores["all_kept"] as? Double == 1)
        #expect(scores["face_kept"] as? Double == 1)
        #expect(scores["head_cut"] as? Double == 0)
        #expect(scores["crops"] as? Int == 5)
        let centre = try await Run(["eval", scratch.path, "--json", "--no-detect"])
        // A centre 16:9 crop of the square photo cuts the top of her head.
        #expect((centre.objects.first?["head_cut"] as? Double ?? 0) > 0)
    }

    @Test("--cache-dir: a second run answers from the folder with the same bytes, and a new padding misses it")
    func cacheDir() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let base = ["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--json", "--cache-dir", scratch.file("cache")]
        let first = try await Run(base + ["-o", scratch.file("a.jpg")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.objects.first?["origin"] as? String == "fresh")
        #expect(scratch.contents.contains("cache"))
        let entries = try FileManager.default.contentsOfDirectory(atPath: scratch.file("cache")).filter { $0.hasSuffix(".focal") }
        #expect(entries.count == 1)
        let second = try await Run(base + ["-o", scratch.file("b.jpg")])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.objects.first?["origin"] as? String == "disk")
        #expect(second.objects.first?["crop"] as? [String: Int] == first.objects.first?["crop"] as? [String: Int])
        let a = try Data(contentsOf: URL(fileURLWithPath: scratch.file("a.jpg")))
        let b = try Data(contentsOf: URL(fileURLWithPath: scratch.file("b.jpg")))
        #expect(a == b)
        let padded = try await Run(base + ["-o", scratch.file("c.jpg"), "--padding", "0.3"])
        #expect(padded.objects.first?["origin"] as? String == "fresh")
    }

    @Test("--timings: each photo's steps in the order they ran, decode, inference and encode among them; a cache hit is its lookup")
    func timings() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let base = ["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--json", "--timings", "--cache-dir", scratch.file("cache")]
        let first = try await Run(base + ["-o", scratch.file("a.jpg")])
        #expect(first.status == 0, "\(first.stderr)")
        let steps = try #require(first.objects.first?["timings"] as? [[String: Any]])
        let names = steps.compactMap { $0["step"] as? String }
        for name in ["fetch", "open", "decode", "infer-faces", "detect-faces", "plan", "render", "encode"] {
            #expect(names.contains(name), "\(name) in \(names)")
        }
        #expect(names.firstIndex(of: "fetch") ?? 99 < names.firstIndex(of: "encode") ?? 0, "in the order they ran: \(names)")
        #expect(steps.allSatisfy { ($0["ms"] as? Double ?? -1) >= 0 })
        let second = try await Run(base + ["-o", scratch.file("b.jpg")])
        let cached = try #require(second.objects.first?["timings"] as? [[String: Any]]).compactMap { $0["step"] as? String }
        #expect(second.objects.first?["origin"] as? String == "disk")
        #expect(cached.contains("look-up-result") && !cached.contains("decode"), "\(cached)")
        // Without --json: a JSON line of its own after the usual one.
        let plain = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--timings", "-o", scratch.file("c.jpg")])
        #expect(plain.stdout.split(separator: "\n").last?.hasPrefix("{\"input\":") == true, "\(plain.stdout)")
        let refused = try await Run(["crop", Checkout.fixture("grace_hopper.jpg"), "--size", "200x200", "--timings"])
        #expect(refused.status != 0 && refused.stderr.contains("-o"))
    }

    @Test("--cache-dir that cannot be created is refused before any work, naming the folder")
    func cacheDirUnusable() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try Data("a file".utf8).write(to: URL(fileURLWithPath: scratch.file("plain")))
        let run = try await Run(["crop", Checkout.fixture("coffee.png"), "--size", "100x100", "--cache-dir", scratch.file("plain/cache")])
        #expect(run.status == 64)
        #expect(run.stderr.contains("plain/cache"))
    }

    @Test("a URL that cannot be fetched fails with an error naming it, and nothing is written")
    func urlOutputName() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // Nothing listens on port 9 of loopback: the fetch fails, and the error names the URL.
        let run = try await Run(["crop", "http://127.0.0.1:9/photos/cat.jpg?w=1", "--size", "100x100", "--json", "-o", scratch.path])
        #expect(run.status == 1)
        let object = try #require(run.objects.first)
        #expect(object["input"] as? String == "http://127.0.0.1:9/photos/cat.jpg?w=1")
        #expect((object["error"] as? String)?.hasPrefix("http://127.0.0.1:9/photos/cat.jpg?w=1: ") == true)
        #expect(scratch.contents.isEmpty)
    }

    @Test("inputs with the same name from different folders get distinct outputs")
    func sameStems() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: scratch.file(folder), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Checkout.fixture("astronaut.png"), toPath: scratch.file("\(folder)/photo.png"))
        }
        try FileManager.default.copyItem(atPath: Checkout.fixture("coffee.png"), toPath: scratch.file("b/photo.PNG"))
        let run = try await Run([
            "crop", scratch.file("a/photo.png"), scratch.file("b/photo.png"), scratch.file("b/photo.PNG"),
            "--size", "64x64", "--json", "-o", scratch.file("out"),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let outputs = run.objects.compactMap { $0["output"] as? String }
        #expect(outputs == [scratch.file("out/photo.png"), scratch.file("out/photo-2.png"), scratch.file("out/photo-3.png")])
        #expect(Set(outputs).count == 3)
        #expect(outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    }
}
