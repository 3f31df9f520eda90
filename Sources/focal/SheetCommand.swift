import ArgumentParser
import Focal
import FocalTools
import Foundation

struct SheetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sheet",
        abstract: "Make a contact sheet: per photo, its subjects, then centre and Focal crops for each aspect.",
        discussion: """
            Example:
              focal sheet ../shared/eval/dev -o sheet.png --aspects 1:1,16:9,9:16
            """)

    @Argument(help: "Image files, folders of images, or http(s) URLs.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "The PNG to write.")
    var output: String

    @Option(help: "Comma-separated aspects.")
    var aspects: String = AspectList.defaultText

    @Option(help: "Row height in pixels.")
    var rowHeight: Int = 180

    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        try Usage.check(json: false) {
            let heights = ContactSheet.rowHeights
            guard heights.contains(rowHeight) else {
                throw ValidationError("--row-height must be between \(heights.lowerBound) and \(heights.upperBound).")
            }
            _ = try parsedAspects()
            try detection.check()
        }
    }

    func parsedAspects() throws -> [(Int, Int)] { try AspectList.parse(aspects) }

    func run() async throws {
        let (files, empty) = InputList.expand(inputs)
        let pipeline = try detection.pipeline(inputs: files.count)
        var rows: [(name: String, analysis: Analysis)] = []
        var failures = InputList.reportEmpty(empty, json: false)
        try await InputRunner.run(files) { file in
            do {
                return .success(try await pipeline.analyze(.argument(file), accuracy: detection.accuracy))
            } catch {
                return .failure(InputFailure(input: file, error: error))
            }
        } report: { file, result in
            switch result {
            case let .success(analysis): rows.append((file, analysis))
            case let .failure(failure):
                failures += 1
                failure.report(json: false)
            }
        }
        let sheet = ContactSheet(aspects: try parsedAspects(), rowHeight: rowHeight)
        try AtomicFile.write(try sheet.png(rows), to: output)
        Terminal.out("wrote \(output): \(rows.count) photos")
        if failures > 0 { throw ExitCode(1) }
    }
}
