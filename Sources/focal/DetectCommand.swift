import ArgumentParser
import Focal
import FocalTools
import Foundation

struct DetectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Print the subjects found in images: faces, cats, dogs, people, the salient region.",
        discussion: """
            Examples:
              focal detect photo.jpg
              focal detect photos/ --json > subjects.jsonl     # reusable with `focal crop --subjects`
              focal detect photo.jpg --debug -o overlays/
            """)

    @Argument(help: "Image files, folders of images, or http(s) URLs.")
    var inputs: [String]

    @OptionGroup var detection: DetectionOptions

    @Flag(help: "Print one JSON object per input per line.")
    var json = false

    @Flag(help: "Write <name>.debug.png with each kind in its own colour and its confidence.")
    var debug = false

    @Option(name: .shortAndLong, help: "Folder for the --debug overlays (default: the current folder).")
    var output: String?

    func validate() throws {
        try Usage.check(json: json) { try detection.check() }
    }

    func run() async throws {
        let (files, empty) = InputList.expand(inputs)
        let pipeline = try detection.pipeline(inputs: files.count)
        let folder = output ?? "."
        if debug { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        var failures = InputList.reportEmpty(empty, json: json)
        try await InputRunner.run(files) { file in
            do {
                let analysis = try await pipeline.analyze(.argument(file), accuracy: detection.accuracy)
                if debug {
                    let stem = InputList.stem(of: file)
                    try AtomicFile.write(try await pipeline.debugOverlay(analysis, plan: nil), to: folder + "/" + stem + ".debug.png")
                }
                return .success(analysis)
            } catch {
                return .failure(InputFailure(input: file, error: error))
            }
        } report: { file, result in
            switch result {
            case let .success(analysis):
                if json {
                    Terminal.out(
                        DocumentEncoding.text(
                            JSONLine.Detect(
                                input: file, width: analysis.size.width, height: analysis.size.height,
                                subjects: analysis.subjects.map(SubjectDocument.init))))
                } else {
                    let list = analysis.subjects.map {
                        "\($0.kind.rawValue) \(Int($0.box.x)),\(Int($0.box.y)) \(Int($0.box.width))x\(Int($0.box.height)) \(String(format: "%.2f", $0.confidence))"
                    }
                    Terminal.out("\(file.oneLine): \(analysis.size)" + (list.isEmpty ? ", nothing found" : "\n  " + list.joined(separator: "\n  ")))
                }
            case let .failure(failure):
                failures += 1
                failure.report(json: json)
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
