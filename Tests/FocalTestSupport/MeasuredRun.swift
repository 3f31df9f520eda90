import Foundation

/// A process run to its end (or killed at its time limit), with its peak resident memory.
///
/// It runs under `python3 -m focalscripts.measure` (scripts/focalscripts/measure.py): Linux carries a
/// process's peak memory across exec, so a child spawned straight from the test process would report
/// the test process's peak, not its own.
package struct MeasuredRun: Sendable {
    /// The exit code, or nil when a signal ended it.
    package let exitCode: Int32?
    /// The signal that ended it, if one did (SIGKILL at the time limit included).
    package let signal: Int32?
    /// Whether it was killed for running past its time limit.
    package let timedOut: Bool
    /// Standard output and standard error.
    package let stdout: String, stderr: String
    /// The peak resident memory, in MiB.
    package let peakMB: Double
    /// Wall-clock seconds from start to end.
    package let seconds: Double

    /// Runs `executable` with `arguments` from the checkout's root, on a thread of its own (so
    /// that waiting never blocks Swift's cooperative pool), killing it after `limit` seconds.
    package init(_ executable: String, _ arguments: [String], limit: Double) async throws {
        self = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try MeasuredRun(blocking: executable, arguments, limit: limit) })
            }.start()
        }
    }

    private init(blocking executable: String, _ arguments: [String], limit: Double) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let (out, err, report) = (scratch.file("out"), scratch.file("err"), scratch.file("report.json"))
        for path in [out, err] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "focalscripts.measure", "--timeout", "\(limit)", "--report", report, "--"] + [executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        let scripts = Checkout.root.appendingPathComponent("scripts").path
        environment["PYTHONPATH"] = [scripts, environment["PYTHONPATH"]].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        process.environment = environment
        process.currentDirectoryURL = Checkout.root
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        try process.run()
        process.waitUntilExit()
        stdout = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        guard let data = FileManager.default.contents(atPath: report),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "focalscripts.measure left no report: \(stderr)"])
        }
        exitCode = (object["exit"] as? Int).map { Int32($0) }
        signal = (object["signal"] as? Int).map { Int32($0) }
        timedOut = object["timed_out"] as? Bool ?? false
        seconds = object["seconds"] as? Double ?? 0
        peakMB = object["peak_mb"] as? Double ?? 0
    }
}
