import Focal

/// An input that failed, reported as `{"input", "error"}` and a line on standard error.
struct InputFailure: Error {
    let input: String
    let message: String

    init(input: String, error: any Error) {
        self.input = input
        if let error = error as? ImagingError, error.source != nil {
            message = "\(error)"
        } else if error is FetchError {
            message = "\(error)"
        } else {
            message = "\(input): \(error)"
        }
    }

    func report(json: Bool) {
        if json { Terminal.out(JSONLine.error(input: input, message: message)) }
        Terminal.err("focal: \(message)")
    }
}

/// Runs one job per input, side by side up to the core count, and reports results in input order.
enum InputRunner {
    static func run<T: Sendable>(
        _ inputs: [String], job: @escaping @Sendable (String) async -> Result<T, InputFailure>,
        report: (String, Result<T, InputFailure>) -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: (Int, Result<T, InputFailure>).self) { group in
            var next = 0, printed = 0, done = 0
            var finished: [Int: Result<T, InputFailure>] = [:]
            func submit() {
                guard next < inputs.count else { return }
                let index = next
                next += 1
                group.addTask { (index, await job(inputs[index])) }
            }
            for _ in 0..<NativeWorkPool.coreCount { submit() }
            while let (index, result) = try await group.next() {
                finished[index] = result
                done += 1
                if inputs.count > 10 { Terminal.progress(done, of: inputs.count) }
                while let ready = finished.removeValue(forKey: printed) {
                    report(inputs[printed], ready)
                    printed += 1
                }
                submit()
            }
        }
    }
}
