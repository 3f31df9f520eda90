import ArgumentParser
import Focal

@main
struct FocalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focal",
        abstract: "Crop photos to any frame so that faces, pets, people or salient content stay in view.",
        version: FocalVersion.string,
        subcommands: [CropCommand.self, DetectCommand.self, EvalCommand.self, SheetCommand.self, ServeCommand.self, OptionsCommand.self])
}
