import ArgumentParser
import Focal

@main
struct FocalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focal",
        abstract: "Crop photos to any frame so that faces, pets, people or salient content stay in view.",
        version: FocalVersion.string,
        subcommands: [CropCommand.self, DetectCommand.self, EvalCommand.self, SheetCommand.self, ServeCommand.self, OptionsCommand.self])

    /// ArgumentParser's own entry point, but for one step: before exiting, successful or not, it
    /// waits for models still loading in the background (a crop that fails while they load would
    /// otherwise exit under OpenVINO's feet and crash).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            BackgroundModelLoads.wait()
            exit(withError: error)
        }
        BackgroundModelLoads.wait()
    }
}
