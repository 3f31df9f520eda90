import Focal

/// An input that failed, reported as `{"input", "error", "code"}` and a line on standard error.
struct InputFailure: Error {
    let input: String
    let code: ErrorCode
    let message: String

    init(input: String, code: ErrorCode, message: String) {
        self.input = input
        self.code = code
        self.message = message
    }

    init(input: String, error: any Error) {
        self.input = input
        if let error = error as? any FocalError {
            code = error.code
            // Errors that name their source already say which input; the rest get its name.
            let named = (error as? ImagingError)?.source != nil || (error as? LimitExceeded)?.source != nil || error is FetchError
                || error is StorageError
            message = named ? error.description : "\(input.oneLine): \(error.description)"
        } else {
            code = .internalFailure
            message = "\(input.oneLine): \(error)"
        }
    }

    func report(json: Bool) {
        if json { Terminal.out(JSONLine.error(input: input, message: message, code: code)) }
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
