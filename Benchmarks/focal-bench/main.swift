// Throughput of the Focal pipeline in one process: crops per second of 12 MP JPEGs to 400x400 on
// all cores, cold and cached, with the peak memory of each phase. Run by `make bench` after
// scripts/bench.py has made the inputs; prints a table. Phases run in rounds, interleaved, so that
// the machine's load falls on all of them alike; each figure is the median of its rounds.
import Focal
import FocalRuntime
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: focal-bench FOLDER_OF_JPEGS [ROUNDS]\n".utf8))
    exit(64)
}
let folder = arguments[1]
let rounds = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 3) : 3
let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    .filter { $0.hasSuffix(".jpg") }.sorted().map { folder + "/" + $0 }
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("focal-bench: no .jpg files in \(folder)\n".utf8))
    exit(66)
}
let models = ProcessInfo.processInfo.environment["FOCAL_MODELS"]
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

/// Crops every input once, `2 × workers` requests in flight; returns crops per second.
func crops(_ pipeline: FocalPipeline, _ inputs: [ImageInput], options: FocalOptions) async throws -> Double {
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        func submit() {
            guard next < inputs.count else { return }
            let input = inputs[next]
            next += 1
            group.addTask { _ = try await pipeline.crop(input, to: target, options: options) }
        }
        for _ in 0..<(2 * workers) { submit() }
        while try await group.next() != nil { submit() }
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(inputs.count) / seconds
}

struct Phase {
    let name: String
    var rates: [Double] = []
    var peak = 0.0
    var median: Double { rates.sorted()[rates.count / 2] }
}

var noDetect = FocalOptions()
noDetect.crop.detect = false
let byContent = files.map { ImageInput.file($0) }
let byName = files.map { ImageInput.file($0, cacheName: $0) }
let diskFolder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-bench-\(getpid())").path
defer { try? FileManager.default.removeItem(atPath: diskFolder) }

var phases = [
    Phase(name: "cold: every detector"), Phase(name: "cold: --no-detect (decode, resize, encode)"),
    Phase(name: "cached in memory, by content digest"), Phase(name: "cached in memory, by cache name"),
    Phase(name: "cached on disk, new pipeline"),
]

@MainActor func measure(_ index: Int, _ body: () async throws -> Double) async throws {
    resetPeak()
    let rate = try await body()
    phases[index].rates.append(rate)
    phases[index].peak = max(phases[index].peak, peakMB())
}

// Warm-up: models loaded, page cache filled.
_ = try await crops(FocalPipeline(configuration: FocalConfiguration(modelsPath: models)), [byContent[0]], options: .default)

for _ in 0..<rounds {
    try? FileManager.default.removeItem(atPath: diskFolder)
    var configuration = FocalConfiguration(modelsPath: models)
    configuration.diskCache = DiskCacheSettings(folder: diskFolder)
    let pipeline = FocalPipeline(configuration: configuration)
    try await measure(0) { try await crops(pipeline, byContent, options: .default) }
    try await measure(1) { try await crops(FocalPipeline(configuration: FocalConfiguration(modelsPath: models)), byContent, options: noDetect) }
    try await measure(2) { try await crops(pipeline, byContent, options: .default) }
    // The same images under cache names: filled once, then measured.
    _ = try await crops(pipeline, byName, options: .default)
    try await measure(3) { try await crops(pipeline, byName, options: .default) }
    try await measure(4) { try await crops(FocalPipeline(configuration: configuration), byContent, options: .default) }
    let statistics = pipeline.statistics
    guard statistics.memoryHits >= files.count else {
        FileHandle.standardError.write(Data("focal-bench: expected memory hits, got \(statistics)\n".utf8))
        exit(1)
    }
}

let cold = phases[0].median
print("Crops of \(files.count) distinct 12 MP JPEGs to 400x400 in one process, \(workers) workers, \(2 * workers) requests in flight")
print("median of \(rounds) interleaved rounds; peak = the phase's peak resident memory of the whole process")
print("\("phase".padding(toLength: 44, withPad: " ", startingAt: 0)) \("crops/s".leftPad(9)) \("vs cold".leftPad(9)) \("peak MB".leftPad(9))")
for phase in phases {
    let ratio = String(format: "%.1fx", phase.median / cold)
    print("\(phase.name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%.1f", phase.median).leftPad(9)) \(ratio.leftPad(9)) \(String(format: "%.0f", phase.peak).leftPad(9))")
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
