// focal-bench: crops per second of the Focal pipeline in one process, on all cores, for
// `make bench` (scripts/focalscripts/bench.py runs it beside libvips's own smart crop and prints the table).
//
// Usage: focal-bench FOLDER PHASE [ROUNDS]
//   PHASE: cold       every .jpg of FOLDER cropped to 400x400 once, with detection, by a new
//                     pipeline (models loaded beforehand, on another photo)
//          nodetect   the same with detection off: decode, resize, encode
//          cached     memory hits by content, memory hits by cache name, disk hits after a restart
//          stages     detection alone, one stage at a time on one thread: milliseconds per image of
//                     faces (YuNet on the 512 px proxy), objects (YOLOv4-tiny at 288 px) and the
//                     salient region (256 px proxy), proxies decoded beforehand; the detectors in
//                     every precision this CPU runs ("faces_fp32_ms", "objects_int8_ms", ...)
// FOCAL_BENCH_PRECISION=fp32 runs cold and nodetect with every model in fp32 (default auto).
// Prints one JSON object per round: {"phase", "crops_per_second", "peak_mb", "steps_ms" (each
// step's milliseconds summed over the crops: `CropResult.timings`), ...}. Peak memory
// is the process's peak resident set during the round (reset before it).
import Focal
import FocalRuntime
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["cold", "nodetect", "cached", "stages"].contains(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: focal-bench FOLDER cold|nodetect|cached|stages [ROUNDS]\n".utf8))
    exit(64)
}
let folder = arguments[1], phase = arguments[2]
let rounds = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 1) : 1
let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    .filter { $0.hasSuffix(".jpg") }.sorted().map { folder + "/" + $0 }
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("focal-bench: no .jpg files in \(folder)\n".utf8))
    exit(66)
}
let models = ProcessInfo.processInfo.environment["FOCAL_MODELS"]
let warmUp = ProcessInfo.processInfo.environment["FOCAL_BENCH_WARMUP"]
let precisions = InferencePrecision.allowed(bySetting: ProcessInfo.processInfo.environment["FOCAL_BENCH_PRECISION"] ?? "auto") ?? [.fp32]
let target = CropTarget.size(width: 400, height: 400)
let workers = NativeWorkPool.coreCount

/// Peak resident memory since the last reset, in MB (Linux; 0 elsewhere).
func peakMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kb = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kb / 1024
}

/// Resets the peak so that the next reading covers only what follows.
func resetPeak() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

/// The milliseconds each step took, summed over the crops of the last `crops` call.
nonisolated(unsafe) var stepMilliseconds: [String: Double] = [:]

/// Crops every input once, `2 × workers` requests in flight; returns crops per second.
func crops(_ pipeline: FocalPipeline, _ inputs: [ImageInput], options: FocalOptions) async throws -> Double {
    let start = ContinuousClock.now
    stepMilliseconds = [:]
    try await withThrowingTaskGroup(of: [StepTiming].self) { group in
        var next = 0
        func submit() {
            guard next < inputs.count else { return }
            let input = inputs[next]
            next += 1
            group.addTask { try await pipeline.crop(input, to: target, options: options).timings }
        }
        for _ in 0..<(2 * workers) { submit() }
        while let timings = try await group.next() {
            for timing in timings {
                let (seconds, attoseconds) = timing.duration.components
                stepMilliseconds[timing.name, default: 0] += Double(seconds) * 1000 + Double(attoseconds) / 1e15
            }
            submit()
        }
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(inputs.count) / seconds
}

/// A pipeline whose models are loaded (by a crop of another photo, with and without faces).
func warmPipeline(_ configure: (inout FocalConfiguration) -> Void = { _ in }) async throws -> FocalPipeline {
    // As `focal serve` runs it: crops side by side, one thread per inference.
    var configuration = FocalConfiguration(
        modelsPath: models, inferenceThreads: 1, compiledModelCache: InferenceSettings.cacheFolder(environment: ProcessInfo.processInfo.environment),
        precisions: precisions)
    configure(&configuration)
    let pipeline = FocalPipeline(configuration: configuration)
    if let warmUp { _ = try await pipeline.analyze(.file(warmUp), scope: .everything) }
    // YuNet has a model per input shape: load the landscape and portrait ones too, as a server
    // that has seen a few photos has them.
    let faces = try FaceDetector(
        models: ModelDirectory.locate(explicit: models, containing: FaceDetector.modelFile), inference: configuration.inference)
    for size in [PixelSize(width: 4, height: 3), PixelSize(width: 3, height: 4), PixelSize(width: 1, height: 1)] {
        faces.prepare(imageSize: size)
    }
    BackgroundModelLoads.wait()
    return pipeline
}

func report(_ values: [String: Any]) {
    let data = (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])) ?? Data("{}".utf8)
    print(String(decoding: data, as: UTF8.self))
}

var noDetect = FocalOptions()
noDetect.crop.detect = false
let byContent = files.map { ImageInput.file($0) }
let byName = files.map { ImageInput.file($0, cacheName: $0) }

/// Milliseconds per image of each detection stage, on one thread (as a server's worker runs it),
/// the detectors in each precision this CPU runs.
func stages() throws -> [String: Any] {
    let folder = try ModelDirectory.locate(explicit: models, containing: FaceDetector.modelFile)
    let cache = InferenceSettings.cacheFolder(environment: ProcessInfo.processInfo.environment)
    var proxies: [(faces: PixelBuffer, saliency: PixelBuffer)] = []
    for file in files {
        let image = try SourceImage.open(path: file)
        proxies.append((try image.proxy(longSide: Accuracy.fast.faceLongSide, enlarge: true), try image.proxy(longSide: 256)))
    }
    func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000 / Double(proxies.count)
    }
    var result: [String: Any] = ["phase": "stages", "images": files.count, "cpu": CPUFeatures.current.description]
    // fp32 alone, then each other precision the CPU runs allowed beside it; a detector that
    // has no model in that precision falls back to one already measured, and is skipped.
    let mixes = [[InferencePrecision.fp32]] + InferencePrecision.allCases.filter { $0 != .fp32 && InferencePrecision.supportedByCPU.contains($0) }.map { [.fp32, $0] }
    for mix in mixes {
        let inference = InferenceSettings(parallel: 1, threadsPerInference: 1, cacheFolder: cache, precisions: Set(mix))
        let faces = try FaceDetector(models: folder, inference: inference)
        let objects = try ObjectDetector(models: folder, inference: inference)
        // The first inference of each model (YuNet has one per input shape: landscape, square,
        // portrait) compiles or loads it: not counted.
        if result["faces_\(faces.precision.rawValue)_ms"] == nil {
            for proxy in proxies { _ = try faces.detectNow(in: proxy.faces) }
            result["faces_\(faces.precision.rawValue)_ms"] = try milliseconds { for p in proxies { _ = try faces.detectNow(in: p.faces) } }
        }
        if result["objects_\(objects.precision.rawValue)_ms"] == nil {
            _ = try objects.detectNow(in: proxies[0].faces)
            result["objects_\(objects.precision.rawValue)_ms"] = try milliseconds { for p in proxies { _ = try objects.detectNow(in: p.faces) } }
        }
    }
    // The precisions a default pipeline runs (`--precision auto`), for the bench's ceiling line.
    let chosen = InferenceSettings(parallel: 1, threadsPerInference: 1, cacheFolder: cache)
    result["faces_default"] = try FaceDetector(models: folder, inference: chosen).precision.rawValue
    result["objects_default"] = try ObjectDetector(models: folder, inference: chosen).precision.rawValue
    let saliency = SaliencyDetector()
    result["saliency_ms"] = try milliseconds { for p in proxies { _ = try saliency.region(in: p.saliency) } }
    return result
}

for _ in 0..<rounds {
    switch phase {
    case "stages":
        report(try stages())
    case "cold", "nodetect":
        let pipeline = try await warmPipeline()
        resetPeak()
        let rate = try await crops(pipeline, byContent, options: phase == "cold" ? .default : noDetect)
        let statistics = pipeline.statistics
        report([
            "phase": phase, "crops_per_second": rate, "peak_mb": peakMB(), "workers": workers, "images": files.count,
            "detections": statistics.detections, "decodes": statistics.proxyDecodes, "renders": statistics.renders,
            "steps_ms": stepMilliseconds,
        ])
    default:
        let disk = FileManager.default.temporaryDirectory.appendingPathComponent("focal-bench-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: disk) }
        let pipeline = try await warmPipeline { $0.diskCache = DiskCacheSettings(folder: disk) }
        _ = try await crops(pipeline, byContent, options: .default)
        _ = try await crops(pipeline, byName, options: .default)
        resetPeak()
        let content = try await crops(pipeline, byContent, options: .default)
        let name = try await crops(pipeline, byName, options: .default)
        let restarted = try await warmPipeline { $0.diskCache = DiskCacheSettings(folder: disk) }
        let fromDisk = try await crops(restarted, byContent, options: .default)
        guard pipeline.statistics.memoryHits >= 2 * files.count, restarted.statistics.diskHits >= files.count else {
            FileHandle.standardError.write(Data("focal-bench: expected cache hits, got \(pipeline.statistics)\n".utf8))
            exit(1)
        }
        report([
            "phase": phase, "memory_by_content": content, "memory_by_name": name, "disk": fromDisk, "peak_mb": peakMB(),
        ])
    }
}
