import FocalCore
import Foundation

/// Finds the folder that holds the model files.
///
/// Looked up in order: the folder passed in (the command line and the server pass `--models`, else
/// `$FOCAL_MODELS`), `./models`, the `models` folder
/// beside the package that built the executable's build folder (for `swift run`), and
/// `share/focal/models` under the executable's install prefix.
public struct ModelDirectory: Hashable, Sendable {
    /// The folder.
    public let path: String

    /// The command that fetches the models, for error messages.
    public static let fetchCommand = "make models"

    /// Uses `path` as it is.
    public init(path: String) { self.path = path }

    /// Resolves the folder that holds `file`.
    /// - Parameters:
    ///   - explicit: A folder the user named (an option); searched alone when given.
    ///   - file: A file that must be in the folder.
    /// - Throws: `DetectionError` (`models.missing`) naming the file, the folders searched and the fix.
    public static func locate(explicit: String? = nil, containing file: String) throws(DetectionError) -> ModelDirectory {
        let candidates = explicit.map { [$0] } ?? searchPath()
        for folder in candidates where FileManager.default.fileExists(atPath: folder + "/" + file) {
            return ModelDirectory(path: folder)
        }
        throw DetectionError(
            .modelsMissing,
            "model file \(file) not found in \(candidates.joined(separator: ", ")); run `\(fetchCommand)` in the Focal checkout, or point --models or FOCAL_MODELS at the folder that holds it")
    }

    /// The folders searched when none is named.
    public static func searchPath() -> [String] {
        var folders: [String] = []
        folders.append(FileManager.default.currentDirectoryPath + "/models")
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let bin = executable.deletingLastPathComponent()
        // .build/<config>/focal -> the checkout's models/
        var up = bin
        for _ in 0..<4 {
            up = up.deletingLastPathComponent()
            if up.lastPathComponent.hasPrefix(".build") {
                folders.append(up.deletingLastPathComponent().appendingPathComponent("models").path)
                break
            }
        }
        folders.append(bin.deletingLastPathComponent().appendingPathComponent("share/focal/models").path)
        var seen = Set<String>()
        return folders.filter { seen.insert($0).inserted }
    }

    /// The full path of `file` in this folder.
    public func file(_ name: String) -> String { path + "/" + name }
}
