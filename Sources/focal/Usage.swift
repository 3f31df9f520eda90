import ArgumentParser
import Focal

/// Usage mistakes: a message that says what to fix, exit code 64, and with `--json` a JSON line
/// `{"error", "code": "request.invalid"}` on standard output as well.
enum Usage {
    /// Runs `checks`; any error becomes a usage error.
    static func check(json: Bool, _ checks: () throws -> Void) throws {
        do {
            try checks()
        } catch let error as ValidationError {
            throw report(error.message, json: json)
        } catch let error as any FocalError {
            throw report(error.description, json: json)
        }
    }

    /// Prints the JSON line when asked and returns the error ArgumentParser reports with exit code 64.
    static func report(_ message: String, json: Bool) -> ValidationError {
        if json { Terminal.out(JSONLine.error(input: nil, message: message, code: .requestInvalid)) }
        return ValidationError(message)
    }
}
