import ArgumentParser
import Focal
import Foundation

@main
struct FocalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focal",
        abstract: "Crop photos to any frame so that faces, pets, people or salient content stay in view.",
        version: FocalVersion.string,
        subcommands: [CropCommand.self, DetectCommand.self, EvalCommand.self, SheetCommand.self, ServeCommand.self, OptionsCommand.self, DoctorCommand.self])

    /// ArgumentParser's own entry point, but for how the process ends: with `_exit`, after
    /// flushing standard output and error, so that no exit handler runs. Models may still be
    /// loading on the background loader (a speculative object model after a portrait's crop, or a
    /// crop that failed early); exit handlers would destroy OpenVINO under them and crash, and
    /// waiting for them would add their load to the command's time.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                // As ArgumentParser prints it: help and version to standard output, errors to standard error.
                fflush(nil)
                try? FileHandle(fileDescriptor: code.isSuccess ? STDOUT_FILENO : STDERR_FILENO).write(contentsOf: Data((message + "\n").utf8))
            }
            end(code.rawValue)
        }
        end(0)
    }

    /// Flushes the C streams (`print` writes through stdout) and ends the process at once.
    private static func end(_ code: Int32) -> Never {
        fflush(nil)
        _exit(code)
    }
}
