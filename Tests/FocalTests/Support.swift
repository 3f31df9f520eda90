import Focal
import Foundation
import Testing

/// Paths of the checkout, found from this file's location.
enum Checkout {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let models = root.appendingPathComponent("models").path
    static func fixture(_ name: String) -> String { root.appendingPathComponent("Fixtures/\(name)").path }

    /// The `focal` executable built beside the test bundle.
    static var focal: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("focal").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return root.appendingPathComponent(".build/debug/focal").path
    }
}

/// A fresh folder, removed when `remove()` is called.
struct Scratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("focal-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// What a run of the `focal` executable printed and returned.
struct Run {
    let status: Int32
    let stdout: String
    let stderr: String

    var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Each stdout line parsed as a JSON object.
    var objects: [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Runs `focal` with `arguments` from the checkout's root, so that `./models` is found.
    /// The wait happens on a thread of its own: blocking one of Swift's few cooperative threads
    /// for seconds would stall every other test's async work in the process.
    init(_ arguments: [String]) async throws {
        self = try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Run(blocking: arguments) }) }.start()
        }
    }

    /// Runs `focal` and waits on the calling thread.
    private init(blocking arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Checkout.focal)
        process.arguments = arguments
        process.currentDirectoryURL = Checkout.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so that a full pipe cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        status = process.terminationStatus
        stdout = String(decoding: outData, as: UTF8.self)
        stderr = String(decoding: errData, as: UTF8.self)
    }
}

/// A pipeline on the checkout's models.
func makePipeline(detectors: [any SubjectDetecting] = []) -> FocalPipeline {
    FocalPipeline(configuration: FocalConfiguration(modelsPath: Checkout.models), detectors: detectors)
}
