import Foundation

/// What a run of the `focal` executable printed and returned.
package struct Run: Sendable {
    /// The exit status.
    package let status: Int32
    /// Standard output.
    package let stdout: String
    /// Standard error.
    package let stderr: String

    /// Standard output's lines.
    package var lines: [String] { stdout.split(separator: "\n").map(String.init) }

    /// Each stdout line parsed as a JSON object.
    package var objects: [[String: any Sendable]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: any Sendable] }
    }

    /// Runs `focal` with `arguments` from the checkout's root, so that `./models` is found.
    /// The wait happens on a thread of its own: blocking one of Swift's few cooperative threads
    /// for seconds would stall every other test's async work in the process.
    package init(_ arguments: [String], executable: String = Checkout.focal, environment: [String: String]? = nil) async throws {
        self = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try Run(blocking: arguments, executable: executable, environment: environment) })
            }.start()
        }
    }

    /// Runs `focal` and waits on the calling thread.
    private init(blocking arguments: [String], executable: String, environment: [String: String]?) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = Checkout.root
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes before waiting, so that a full pipe cannot block the child; stderr on a
        // thread of its own so that neither can fill while the other is read.
        // Foundation's `readDataToEndOfFile` traps when a signal interrupts its read (EINTR; seen
        // in CI), so the pipes are read with `readAll`, which retries.
        let errData = LockedData()
        let done = DispatchSemaphore(value: 0)
        Thread {
            errData.set(Result { try readAll(err.fileHandleForReading.fileDescriptor) })
            done.signal()
        }.start()
        let outData = Result { try readAll(out.fileHandleForReading.fileDescriptor) }
        done.wait()
        process.waitUntilExit()
        status = process.terminationStatus
        stdout = String(decoding: try outData.get(), as: UTF8.self)
        stderr = String(decoding: try errData.get().get(), as: UTF8.self)
    }
}

/// Reads `descriptor` to its end, retrying a read that a signal interrupted.
func readAll(_ descriptor: Int32) throws -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[0..<count])
        } else if count == 0 {
            return data
        } else if errno != EINTR {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}

/// A read's result handed from one thread to another.
private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Data, any Error> = .success(Data())
    func set(_ value: Result<Data, any Error>) { lock.withLock { result = value } }
    func get() -> Result<Data, any Error> { lock.withLock { result } }
}
