import ArgumentParser

@main
struct FocalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focal",
        abstract: "Crop photos to any frame so that faces stay in view.",
        subcommands: [CropCommand.self, EvalCommand.self])
}
