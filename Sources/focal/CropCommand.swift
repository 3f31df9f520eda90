import ArgumentParser
import Focal
import FocalServer
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

    // The crop options of the table (CropOption.all), each read through the table's parser;
    // written from the table by `make generated` (accuracy is in `DetectionOptions`).
    // focal:crop-option-flags
    @Option(parsing: .unconditional, help: CropOption.help("scheme")) var scheme: String?
    @Option(parsing: .unconditional, help: CropOption.help("padding")) var padding: String?
    @Option(parsing: .unconditional, help: CropOption.help("headroom")) var headroom: String?
    @Option(parsing: .unconditional, help: CropOption.help("zoom")) var zoom: String?
    @Option(parsing: .unconditional, help: CropOption.help("focus")) var focus: String?
    @Option(parsing: .unconditional, help: CropOption.help("detect")) var detect: String?
    @Option(parsing: .unconditional, help: CropOption.help("format")) var format: String?
    @Option(parsing: .unconditional, help: CropOption.help("quality")) var quality: String?
    @Option(parsing: .unconditional, help: CropOption.help("redact")) var redact: String?
    @Option(parsing: .unconditional, help: CropOption.help("kinds")) var kinds: String?
    @Option(parsing: .unconditional, help: CropOption.help("placement")) var placement: String?
    @Option(parsing: .unconditional, help: CropOption.help("tight")) var tight: String?
    @Option(parsing: .unconditional, help: CropOption.help("draw-detections")) var drawDetections: String?
    @Option(parsing: .unconditional, help: CropOption.help("no-upscale")) var noUpscale: String?
    @Option(parsing: .unconditional, help: CropOption.help("upscale")) var upscale: String?
    @Option(parsing: .unconditional, help: CropOption.help("proportion")) var proportion: String?
    @Option(parsing: .unconditional, help: CropOption.help("stretch")) var stretch: String?
    @Option(parsing: .unconditional, help: CropOption.help("fill")) var fill: String?
    @Option(parsing: .unconditional, help: CropOption.help("lossless")) var lossless: String?
    @Option(parsing: .unconditional, help: CropOption.help("max-bytes")) var maxBytes: String?
    @Option(parsing: .unconditional, help: CropOption.help("autojpg")) var autojpg: String?
    @Option(parsing: .unconditional, help: CropOption.help("first-frames")) var firstFrames: String?
    @Option(parsing: .unconditional, help: CropOption.help("page")) var page: String?
    @Option(parsing: .unconditional, help: CropOption.help("orient")) var orient: String?
    @Option(parsing: .unconditional, help: CropOption.help("watermark")) var watermark: String?
    @Option(parsing: .unconditional, help: CropOption.help("overlay")) var overlay: String?
    @Option(parsing: .unconditional, help: CropOption.help("frame")) var frame: String?
    @Option(parsing: .unconditional, help: CropOption.help("trim")) var trim: String?
    @Option(parsing: .unconditional, help: CropOption.help("brightness")) var brightness: String?
    @Option(parsing: .unconditional, help: CropOption.help("contrast")) var contrast: String?
    @Option(parsing: .unconditional, help: CropOption.help("saturation")) var saturation: String?
    @Option(parsing: .unconditional, help: CropOption.help("rgb")) var rgb: String?
    @Option(parsing: .unconditional, help: CropOption.help("grayscale")) var grayscale: String?
    @Option(parsing: .unconditional, help: CropOption.help("equalize")) var equalize: String?
    @Option(parsing: .unconditional, help: CropOption.help("colorize")) var colorize: String?
    @Option(parsing: .unconditional, help: CropOption.help("hue")) var hue: String?
    @Option(parsing: .unconditional, help: CropOption.help("curve")) var curve: String?
    @Option(parsing: .unconditional, help: CropOption.help("noise")) var noise: String?
    @Option(parsing: .unconditional, help: CropOption.help("blur")) var blur: String?
    @Option(parsing: .unconditional, help: CropOption.help("sharpen")) var sharpen: String?
    @Option(parsing: .unconditional, help: CropOption.help("convolution")) var convolution: String?
    @Option(parsing: .unconditional, help: CropOption.help("round-corner")) var roundCorner: String?
    @Option(parsing: .unconditional, help: CropOption.help("label")) var label: String?
    @Option(parsing: .unconditional, help: CropOption.help("rotate")) var rotate: String?
    @Option(parsing: .unconditional, help: CropOption.help("output-crop")) var outputCrop: String?
    @Option(parsing: .unconditional, help: CropOption.help("background-color")) var backgroundColor: String?
    // /focal:crop-option-flags

    @Flag(help: "Skip detection: a plain centre crop (the same as --detect off).")
    var noDetect = false

    @Option(name: .shortAndLong, help: "Output folder, or a file name for a single input. Without it nothing is written.")
    var output: String?

    @Flag(help: "Print one JSON object per input per line.")
    var json = false

    @Flag(help: "Also write <name>.debug.png beside each output, showing subjects, region and crop.")
    var debug = false

    @Flag(help: "Print where each photo's time went, step by step, as JSON (in --json's line, else a line of its own). Needs -o.")
    var timings = false

    @Option(help: "Keep finished crops in this folder and reuse them on later runs (created if missing).")
    var cacheDir: String?

    @Option(help: "The most the --cache-dir folder may hold, in MiB; the least recently used go first.")
    var cacheSize: Int = 1024

    @Option(help: "Seconds a URL may take to download, redirects included.")
    var timeout: Double = 30

    @Option(help: "A preset of FOCAL_PRESETS (as `focal serve --preset NAME=filters:…`, filters alone) applied before the other options.")
    var preset: String?

    @OptionGroup var detection: DetectionOptions

    func validate() throws {
        try Usage.check(json: json) {
            guard (size == nil) != (aspect == nil) else {
                throw ValidationError("Give exactly one of --size WxH or --aspect A:B.")
            }
            if debug && output == nil { throw ValidationError("--debug writes beside the outputs: give -o DIR as well.") }
            if timings && output == nil { throw ValidationError("--timings times the render too: give -o DIR (without it nothing is rendered).") }
            guard cacheSize > 0 else { throw ValidationError("--cache-size must be a positive number of MiB.") }
            guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds.") }
            guard cacheSize <= 1 << 20 else { throw ValidationError("--cache-size is in MiB and at most 1048576 (1 TiB).") }
            _ = try focalOptions()
            let target = try target()
            if case let .size(w, h) = target { try detection.limits.check(output: PixelSize(width: w, height: h)) }
            try checkFormat()
            try detection.check()
            if let cacheDir { try Self.checkWritable(cacheDir) }
        }
    }

    /// A named output file decides the format by its extension; `--format` may not contradict it.
    func checkFormat() throws {
        guard let output, let format = try focalOptions().format else { return }
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
        return try CropTarget(parsingAspect: aspect ?? "")
    }

    /// The options given, each read through the crop option table (the command line's accuracy
    /// comes from the detection options). The flags are found by name: a table option's flag is
    /// the property named for it (`min-face`, `minFace`), which `make generated` writes.
    func focalOptions() throws -> FocalOptions {
        var options = FocalOptions(accuracy: detection.accuracy)
        if let preset {
            // The same presets `focal serve` reads from FOCAL_PRESETS.
            let presets = try ServerConfiguration(flags: [:], environment: ProcessInfo.processInfo.environment).presets
            guard let chosen = presets[preset] else {
                throw ValidationError("--preset: no preset is named '\(preset)'; FOCAL_PRESETS has \(presets.isEmpty ? "none" : presets.keys.sorted().joined(separator: ", "))")
            }
            guard chosen.options.isEmpty else {
                throw ValidationError("--preset: \(preset) gives a size or crop (\(chosen.options.joined(separator: "/"))); give --size or --aspect and a preset of filters alone")
            }
            do { options = try chosen.filterOptions() } catch { throw ValidationError("--preset: \(error.publicMessage)") }
            options.accuracy = detection.accuracy
        }
        var given: [String: String] = [:]
        for case let (label?, value as Option<String?>) in Mirror(reflecting: self).children {
            if let text = value.wrappedValue { given[Self.optionName(property: label)] = text }
        }
        for option in CropOption.all {
            guard let text = given[option.name] else { continue }
            do { try option.apply(text, to: &options) } catch { throw ValidationError("--\(option.name): \(error.publicMessage)") }
        }
        if noDetect { options.crop.detect = false }
        // An overlay's image (watermark, frame, image) is a file, a URL or an object, as an input is.
        for (slot, source) in options.overlays { options.overlayInputs[slot] = ImageInput.argument(source) }
        return options
    }

    /// A table option's name for the property that holds its flag: `_minFace` is `min-face`.
    static func optionName(property label: String) -> String {
        String(label.drop(while: { $0 == "_" }).flatMap { $0.isUppercase ? ["-"] + $0.lowercased() : [$0] })
    }

    /// Creates the cache folder if needed and checks that files can be written in it.
    /// `, 30 frames` or `, 30 frames, moving` for an animated plan; empty for a still one.
    static func motion(_ plan: CropPlan) -> String {
        guard let frames = plan.frames else { return "" }
        return ", \(frames.count) frames" + (Set(frames.map(\.crop)).count > 1 ? ", moving" : "")
    }

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
        let given = try focalOptions()
        let pipeline = try detection.pipeline(inputs: files.count) { configuration in
            configuration.diskCache = cacheDir.map { DiskCacheSettings(folder: $0, maxBytes: cacheSize << 20) }
            // Each input is cropped once: without a disk cache, no result outlives the job, so a
            // file is not hashed (2 to 5 ms for a 12 MP JPEG). The same file given twice is
            // detected twice.
            configuration.identifyByContent = cacheDir != nil
            configuration.network.totalTimeout = .milliseconds(Int(timeout * 1000))
        }
        let destination = try OutputDestination(output, inputs: files)
        var failures = InputList.reportEmpty(empty, json: json)
        try await InputRunner.run(files) { file in
            await self.process(file, target: target, given: given, pipeline: pipeline, destination: destination)
        } report: { file, result in
            switch result {
            case let .success(done):
                if json {
                    Terminal.out(
                        JSONLine.crop(
                            input: file, plan: done.plan, detected: done.detected, output: done.output, origin: done.origin, options: given,
                            timings: timings ? done.timings : nil))
                } else {
                    let plan = done.plan, used = plan.subjects.count
                    let cached = done.origin == "fresh" ? "" : ", \(done.origin)"
                    let why = "\(plan.strategy.rawValue), \(used) subject\(used == 1 ? "" : "s")\(cached)"
                    Terminal.out("\(file.oneLine): \(plan.imageSize) -> crop \(plan.crop) (\(why))\(Self.motion(plan))\(done.output.map { " -> \($0.oneLine)" } ?? "")")
                    if timings { Terminal.out(JSONLine.timings(input: file, done.timings)) }
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
        var timings: [StepTiming] = []
    }

    /// The input an argument names (`ImageInput.named`, else a file path); a `color:` source is
    /// made at `--size` (an `--aspect` has no size to make it at).
    static func input(_ argument: String, target: CropTarget, limits: ImageLimits) throws -> ImageInput {
        let size: PixelSize? = if case let .size(width, height) = target { PixelSize(width: width, height: height) } else { nil }
        return try ImageInput.named(argument, size: size, limits: limits) ?? .file(argument)
    }

    func process(
        _ argument: String, target: CropTarget, given: FocalOptions, pipeline: FocalPipeline, destination: OutputDestination
    ) async -> Result<Cropped, InputFailure> {
        do {
            let input = try Self.input(argument, target: target, limits: pipeline.configuration.limits)
            let path = destination.path(for: argument)
            // A named output file decides the format by its extension; else --format (`auto`: AVIF where
            // it fits, else WebP), else the input's own.
            let named = destination.isFile ? path.flatMap { ImageFormat(fileExtension: ($0 as NSString).pathExtension) } : nil
            var options = given
            if let named {
                options.format = named
                options.automaticFormat = nil
            } else if options.automaticFormat != nil {
                // `--format auto` here has no client to ask: the best of every format.
                options.automaticFormat = [.avif, .webp]
            }
            let crop = options.crop
            guard let path else {
                // Nothing is written: plan only, so no pixels are rendered.
                let plans = try await pipeline.plan(input, frames: [.fixed(target)], options: options)
                guard let plan = plans.frames.first?.plan else { throw PlanningError.invalidTarget("no frame was planned") }
                return .success(Cropped(plan: plan, detected: plans.analysis.subjects, output: nil, origin: "fresh"))
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
                // The image the crop was planned on: the page picked, turned.
                let analysis = try await pipeline.analyze(
                    input, accuracy: detection.accuracy, detect: crop.needsDetection, scope: .crop, page: options.page, orient: options.orient)
                let overlay = try await pipeline.debugOverlay(analysis, plan: result.plan)
                try AtomicFile.write(overlay, to: (finalPath as NSString).deletingPathExtension + ".debug.png")
            }
            return .success(Cropped(plan: result.plan, detected: result.detected, output: finalPath, origin: result.origin.name, timings: result.timings))
        } catch {
            return .failure(InputFailure(input: argument, error: error))
        }
    }
}
