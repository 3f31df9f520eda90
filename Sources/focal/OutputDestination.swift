import ArgumentParser
import Foundation

/// Where `focal crop` writes: nowhere, one file, or a folder of files named after the inputs.
struct OutputDestination: Sendable {
    let base: String?
    let isFile: Bool

    init(_ output: String?, inputCount: Int) throws {
        base = output
        guard let output else {
            isFile = false
            return
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
        let named = !(output as NSString).pathExtension.isEmpty && !output.hasSuffix("/")
        isFile = !(exists && isDirectory.boolValue) && named
        if isFile && inputCount > 1 {
            throw ValidationError("-o \(output) names one file but there are \(inputCount) inputs; give a folder.")
        }
        if !isFile {
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("cannot create the output folder \(output): \(error.localizedDescription)")
            }
        }
    }

    /// The output path for an input: the file itself, or `<folder>/<stem>` (the caller adds the
    /// extension).
    func path(for input: String) -> String? {
        guard let base else { return nil }
        if isFile { return base }
        let stem = InputList.stem(of: input)
        let folder = base.hasSuffix("/") ? String(base.dropLast()) : base
        return folder + "/" + stem
    }
}
