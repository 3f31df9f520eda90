import ArgumentParser
import Focal
import FocalTools
import Foundation

struct EvalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score crops against a labelled folder (labels.json): all_kept, face_kept, head_cut, pet_kept.",
        discussion: """
            For each image and each aspect, Focal takes the largest crop of that aspect and scores it.
            Example:
              focal eval ../shared/eval/dev
              focal eval ../shared/eval/dev --no-detect     # centre crops, for comparison
              focal eval ../shared/eval/dev --require 'all_kept>=0.97,errors==0'
            With --require, a line per requirement follows the scores; the exit code
            is 2 when one is not met (1: only an image failed; 64: a usage mistake).
            """)

    @Argument(help: "A folder with images and labels.json.")
    var directory: String

    @Option(help: "Comma-separated aspects.")
    var aspects: String = AspectList.defaultText

    @Flag(help: "Skip detection: score plain centre crops.")
    var noDetect = false

    @OptionGroup var detection: DetectionOptions

    @Option(help: "Where the kept subjects sit: center, thirds or X,Y (as `focal crop --placement`).")
    var placement: String = "center"

    @Flag(help: "Also print one line per image and aspect that lost a face or pet.")
    var verbose = false

    @Flag(help: "Print the scores as one JSON object.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Requirements on the figures, comma-separated NAME OP NUMBER (OP: >=, <=, ==, >, <; NAME: a key of --json), "
                + "e.g. 'all_kept>=0.97,errors==0' (quoted); exit code 2 when one is not met.",
            valueName: "requirements"))
    var require: String?

    func validate() throws {
        try Usage.check(json: json) {
            try detection.check()
            _ = try parsedAspects()
            _ = try parsedRequirements()
            _ = try Placement(text: placement)
        }
    }

    func parsedRequirements() throws -> [EvalRequirement] {
        guard let require else { return [] }
        return try EvalRequirement.list(parsing: require, known: EvalFigures.names)
    }

    func parsedAspects() throws -> [(Int, Int)] { try AspectList.parse(aspects) }

    func run() async throws {
        let targets = try parsedAspects()
        var options = CropOptions.default
        let placed = try Placement(text: placement)
        options.placement = placed == .center ? nil : placed
        let requirements = try parsedRequirements()
        let labels = try EvalLabels.load(directory: directory)
        // One image at a time, each inference on one thread: the figures do not depend on the cores.
        let pipeline = try detection.pipeline(inputs: 2)
        var score = EvalScore()
        var found = EvalDetection()
        var errors: [String] = []
        var crops = 0
        let clock = ContinuousClock()
        var detectTime = Duration.zero, planTime = Duration.zero

        for name in labels.images.keys.sorted() {
            guard let labelled = labels.images[name] else { continue }
            let path = directory + "/" + name
            do {
                // Crops are planned on what `focal crop` detects (the crop scope, timed); recall and
                // precision are measured on everything every detector finds.
                let started = clock.now
                let analysis = try await pipeline.analyze(.file(path), accuracy: detection.accuracy, detect: !noDetect, scope: .crop)
                detectTime += clock.now - started
                let everything = noDetect ? analysis : try await pipeline.analyze(.file(path), accuracy: detection.accuracy, scope: .everything)
                found.add(detected: everything.subjects, labels: labelled.boxes, exhaustive: labelled.exhaustive_kinds ?? [])
                for aspect in targets {
                    let planStarted = clock.now
                    let plan = try analysis.plan(.aspect(width: aspect.0, height: aspect.1), options: options)
                    planTime += clock.now - planStarted
                    crops += 1
                    let before = score
                    score.add(crop: plan.crop, imageSize: analysis.size, aspect: aspect, labels: labelled.boxes)
                    if verbose {
                        var lost: [String] = []
                        if score.allKept.total > before.allKept.total && score.allKept.hits == before.allKept.hits { lost.append("all_kept") }
                        if score.faceKept.hits - before.faceKept.hits < score.faceKept.total - before.faceKept.total { lost.append("face") }
                        if score.headCut.hits > before.headCut.hits { lost.append("head_cut") }
                        if score.petKept.hits - before.petKept.hits < score.petKept.total - before.petKept.total { lost.append("pet") }
                        if !lost.isEmpty {
                            Terminal.err("\(name) \(aspect.0):\(aspect.1) crop \(plan.crop) \(plan.strategy.rawValue): lost \(lost.joined(separator: ", "))")
                        }
                    }
                }
            } catch {
                errors.append("\(name): \(error)")
                Terminal.err("focal: \(name): \(error)")
            }
        }
        let images = labels.images.count
        let msPerImage = Self.milliseconds(detectTime) / Double(max(1, images - errors.count))
        let msPerCrop = (Self.milliseconds(detectTime) + Self.milliseconds(planTime)) / Double(max(1, crops))
        let figures = EvalFigures(
            images: images, crops: crops, errors: errors.count, score: score, detection: found, msPerImage: msPerImage,
            msPerCrop: msPerCrop)
        if json {
            Terminal.out(DocumentEncoding.text(figures.document))
        } else {
            Terminal.out("""
                images      \(images) (\(errors.count) errors), \(crops) crops, \(score.aspectErrors) off-aspect
                all_kept    \(score.allKept)
                face_kept   \(score.faceKept)
                head_cut    \(score.headCut)
                pet_kept    \(score.petKept)
                time        \(String(format1: msPerImage)) ms per image (open + detect), \(String(format1: msPerCrop)) ms per crop amortised
                """)
            if !noDetect {
                for kind in EvalDetection.kinds {
                    let r = found.recall[kind].map(\.description) ?? "n/a"
                    let p = found.precision[kind].map(\.description) ?? "n/a"
                    Terminal.out("\(kind.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) recall \(r), precision \(p)")
                }
                Terminal.out("pets        recall \(found.petRecall) (a cat or a dog, whichever it was called)")
                Terminal.out("false pets  \(found.falsePets) cat or dog detections on photos with none")
            }
        }
        if !Self.report(requirements, on: figures, json: json) { throw ExitCode(Self.unmetRequirementStatus) }
        if !errors.isEmpty { throw ExitCode(1) }
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
