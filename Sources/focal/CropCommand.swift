import ArgumentParser
import Focal
import FocalTools
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
              focal crop https://example.com/team.jpg --size 400x400 -o avatar.jpg
              focal crop photos/ --size 400x400 -o out/ --cache-dir ~/.cache/focal
            """)

    @Argument(help: "Image files, folders of images, or http(s) URLs.")
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

    @Option(help: "Keep finished crops in this folder and reuse them on later runs (created if missing).")
    var cacheDir: String?

    @Option(help: "The most the --cache-dir folder may hold, in MiB; the least recently used go first.")
    var cacheSize: Int = 1024

    @Option(help: "Seconds a URL may take to download, redirects included.")
    var timeout: Double = 30

    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        try Usage.check(json: json) {
            guard (size == nil) != (aspect == nil) else {
                throw ValidationError("Give exactly one of --size WxH or --aspect A:B.")
            }
            guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
            if debug && output == nil { throw ValidationError("--debug writes beside the outputs: give -o DIR as well.") }
            guard cacheSize > 0 else { throw ValidationError("--cache-size must be a positive number of MiB.") }
            guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds.") }
            guard cacheSize <= 1 << 20 else { throw ValidationError("--cache-size is in MiB and at most 1048576 (1 TiB).") }
            _ = try cropOptions()
            let target = try target()
            if case let .size(w, h) = target { try detection.limits.check(output: PixelSize(width: w, height: h)) }
            try checkFormat()
            try detection.check()
            if let cacheDir { try Self.checkWritable(cacheDir) }
        }
    }

    /// A named output file decides the format by its extension; `--format` may not contradict it.
    func checkFormat() throws {
        guard let output, let format else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let ext = (output as NSString).pathExtension
        if let named = ImageFormat(fileExtension: ext), named != format {
            throw ValidationError(
                "-o \(output) names a \(named.rawValue.uppercased()) file but --format is \(format.rawValue); name it .\(format.fileExtension) or drop --format.")
        }
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

    /// Creates the cache folder if needed and checks that files can be written in it.
    static func checkWritable(_ folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("--cache-dir \(folder) cannot be created: \(error.localizedDescription)")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            throw ValidationError("--cache-dir \(folder) is not writable; choose another folder.")
        }
    }

    func run() async throws {
        let (files, empty) = InputList.expand(inputs)
        let target = try target()
        let crop = try cropOptions()
        let pipeline = try detection.pipeline(inputs: files.count) { configuration in
            configuration.diskCache = cacheDir.map { DiskCacheSettings(folder: $0, maxBytes: cacheSize << 20) }
            configuration.network.totalTimeout = .milliseconds(Int(timeout * 1000))
        }
        let destination = try OutputDestination(output, inputs: files)
        var failures = InputList.reportEmpty(empty, json: json)
        try await InputRunner.run(files) { file in
            await self.process(file, target: target, crop: crop, pipeline: pipeline, destination: destination)
        } report: { file, result in
            switch result {
            case let .success(done):
                if json {
                    Terminal.out(JSONLine.crop(input: file, plan: done.plan, detected: done.detected, output: done.output, origin: done.origin))
                } else {
                    let plan = done.plan, used = plan.subjects.count
                    let cached = done.origin == "fresh" ? "" : ", \(done.origin)"
                    Terminal.out("\(file.oneLine): \(plan.imageSize) -> crop \(plan.crop) (\(plan.strategy.rawValue), \(used) subject\(used == 1 ? "" : "s")\(cached))\(done.output.map { " -> \($0.oneLine)" } ?? "")")
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
        let origin: String
    }

    func process(
        _ argument: String, target: CropTarget, crop: CropOptions, pipeline: FocalPipeline, destination: OutputDestination
    ) async -> Result<Cropped, InputFailure> {
        do {
            let input = ImageInput.argument(argument)
            let path = destination.path(for: argument)
            // A named output file decides the format by its extension; else --format, else the input's own.
            let named = destination.isFile ? path.flatMap { ImageFormat(fileExtension: ($0 as NSString).pathExtension) } : nil
            let options = FocalOptions(crop: crop, accuracy: detection.accuracy, format: named ?? format, quality: quality)
            guard let path else {
                // Nothing is written: plan only, so no pixels are rendered.
                let analysis = try await pipeline.analyze(input, accuracy: detection.accuracy, detect: crop.needsDetection, scope: .crop)
                let plan = try analysis.plan(target, options: crop)
                return .success(Cropped(plan: plan, detected: analysis.subjects, output: nil, origin: "fresh"))
            }
            let result = try await pipeline.crop(input, to: target, options: options)
            let finalPath = destination.isFile ? path : path + "." + result.format.fileExtension
            if !input.isRemote, OutputDestination.sameFile(finalPath, argument) {
                throw ImagingError(
                    .outputWriteFailed, "the output would overwrite the input", hint: "choose another -o file or folder",
                    source: argument)
            }
            try AtomicFile.write(result.data, to: finalPath)
            if debug {
                let analysis = try await pipeline.analyze(input, accuracy: detection.accuracy, detect: crop.needsDetection, scope: .crop)
                let overlay = try await pipeline.debugOverlay(analysis, plan: result.plan)
                try AtomicFile.write(overlay, to: (finalPath as NSString).deletingPathExtension + ".debug.png")
            }
            return .success(Cropped(plan: result.plan, detected: result.detected, output: finalPath, origin: result.origin.name))
        } catch {
            return .failure(InputFailure(input: argument, error: error))
        }
    }
}
