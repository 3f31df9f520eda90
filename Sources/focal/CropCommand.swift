import ArgumentParser
import Focal
import Foundation

struct CropCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crop",
        abstract: "Crop images to a size or aspect ratio, keeping faces in frame.",
        discussion: """
            Examples:
              focal crop photo.jpg --size 400x400 -o avatar.jpg
              focal crop photos/ --aspect 16:9 -o out/ --debug
              focal crop photo.jpg --aspect 4:5 --json
            """)

    @Argument(help: "Image files or folders of images.")
    var inputs: [String]

    @Option(help: "Output size WxH, e.g. 400x400 (the crop is resized to exactly this).")
    var size: String?

    @Option(help: "Aspect ratio A:B, e.g. 16:9 (the largest crop, not resized).")
    var aspect: String?

    @Option(help: "Which subjects to frame: all, largest or smallest.")
    var scheme: BoundingScheme = .all

    @Option(help: "Room around each subject: a fraction of its size (0.1) or pixels (24px).")
    var padding: String = "0.1"

    @Option(help: "fill (the largest crop) or subject:F (zoom until subjects fill F of the frame).")
    var zoom: String = "fill"

    @Option(help: "Centre on this point X,Y (pixels of the upright image) instead of detecting.")
    var focus: String?

    @Flag(help: "Skip detection: a plain centre crop.")
    var noDetect = false

    @Option(name: .shortAndLong, help: "Output folder, or a file name for a single input. Without it nothing is written.")
    var output: String?

    @Option(help: "Output format: jpeg, png or webp (default: the input's own when it is one of these, else jpeg).")
    var format: ImageFormat?

    @Option(help: "JPEG and WebP quality, 1-100.")
    var quality: Int = 85

    @Flag(help: "Print one JSON object per input per line.")
    var json = false

    @Flag(help: "Also write <name>.debug.png beside each output, showing subjects, region and crop.")
    var debug = false

    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        guard (size == nil) != (aspect == nil) else {
            throw ValidationError("Give exactly one of --size WxH or --aspect A:B.")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
        if debug && output == nil { throw ValidationError("--debug writes beside the outputs: give -o DIR as well.") }
        _ = try cropOptions()
        _ = try target()
    }

    func target() throws -> CropTarget {
        if let size {
            let target = try CropTarget(parsing: size)
            guard case .size = target else { throw ValidationError("--size takes WxH, e.g. 400x300.") }
            return target
        }
        let target = try CropTarget(parsing: aspect ?? "")
        guard case .aspect = target else { throw ValidationError("--aspect takes A:B, e.g. 16:9.") }
        return target
    }

    func cropOptions() throws -> CropOptions {
        CropOptions(
            scheme: scheme, padding: try Padding(parsing: padding), zoom: try Zoom(parsing: zoom),
            override: try focus.map { try ManualOverride(parsingFocus: $0) }, detect: !noDetect)
    }

    func run() async throws {
        let files = InputList.expand(inputs)
        let target = try target()
        let crop = try cropOptions()
        let pipeline = try detection.pipeline()
        let destination = try OutputDestination(output, inputCount: files.count)
        var failures = 0
        try await InputRunner.run(files) { file in
            await self.process(file, target: target, crop: crop, pipeline: pipeline, destination: destination)
        } report: { file, result in
            switch result {
            case let .success(done):
                if json {
                    Terminal.out(JSONLine.crop(input: file, plan: done.plan, detected: done.detected, output: done.output))
                } else {
                    let plan = done.plan, used = plan.subjects.count
                    Terminal.out("\(file): \(plan.imageSize) -> crop \(plan.crop) (\(plan.strategy.rawValue), \(used) subject\(used == 1 ? "" : "s"))\(done.output.map { " -> \($0)" } ?? "")")
                }
            case let .failure(failure):
                failures += 1
                failure.report(json: json)
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    struct Cropped: Sendable {
        let plan: CropPlan
        let detected: [Subject]
        let output: String?
    }

    func process(
        _ input: String, target: CropTarget, crop: CropOptions, pipeline: FocalPipeline, destination: OutputDestination
    ) async -> Result<Cropped, InputFailure> {
        do {
            let detect = crop.detect && crop.override == nil
            let analysis = try await pipeline.analyze(.file(input), accuracy: detection.accuracy, detect: detect)
            let plan = try analysis.plan(target, options: crop)
            guard let path = destination.path(for: input) else {
                return .success(Cropped(plan: plan, detected: analysis.subjects, output: nil))
            }
            let format = self.format ?? ImageFormat(fileExtension: (path as NSString).pathExtension)
                ?? ImageFormat(rawValue: analysis.image.format) ?? .jpeg
            let finalPath = destination.isFile ? path : path + "." + format.fileExtension
            let data = try await pipeline.render(analysis.image, plan: plan, format: format, quality: quality)
            try AtomicFile.write(data, to: finalPath)
            if debug {
                let overlay = try await pipeline.debugOverlay(analysis, plan: plan)
                try AtomicFile.write(overlay, to: (finalPath as NSString).deletingPathExtension + ".debug.png")
            }
            return .success(Cropped(plan: plan, detected: analysis.subjects, output: finalPath))
        } catch {
            return .failure(InputFailure(input: input, error: error))
        }
    }
}

extension BoundingScheme: ExpressibleByArgument {}
extension Accuracy: ExpressibleByArgument {}
extension ImageFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument == "jpg" ? "jpeg" : argument)
    }
}
