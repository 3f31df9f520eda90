import ArgumentParser
import Foundation

/// Where `focal crop` writes: nowhere, one file, or a folder of files named after the inputs.
struct OutputDestination: Sendable {
    let base: String?
    let isFile: Bool
    /// The output path (without extension in a folder) of each input.
    private let assigned: [String: String]

    init(_ output: String?, inputs: [String]) throws {
        base = output
        guard let output else {
            isFile = false
            assigned = [:]
            return
        }
        let inputCount = Set(inputs).count
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
        // Inputs with the same stem (photos from two folders, URLs ending alike) get -2, -3, ...
        var assigned: [String: String] = [:]
        var taken: Set<String> = []
        let folder = output.hasSuffix("/") ? String(output.dropLast()) : output
        for input in inputs where assigned[input] == nil {
            if isFile {
                assigned[input] = output
                continue
            }
            let stem = InputList.stem(of: input)
            var candidate = stem, n = 1
            while taken.contains(candidate.lowercased()) {
                n += 1
                candidate = "\(stem)-\(n)"
            }
            taken.insert(candidate.lowercased())
            assigned[input] = folder + "/" + candidate
        }
        self.assigned = assigned
    }

    /// The output path for an input: the file itself, or `<folder>/<stem>` (the caller adds the
    /// extension), unique among the inputs.
    func path(for input: String) -> String? { assigned[input] }

    /// Whether two paths name the same existing file (through links, `..` and the like).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = try? FileManager.default.attributesOfItem(atPath: a),
            let y = try? FileManager.default.attributesOfItem(atPath: b)
        else { return false }
        return (x[.systemNumber] as? NSNumber) == (y[.systemNumber] as? NSNumber)
            && (x[.systemFileNumber] as? NSNumber) == (y[.systemFileNumber] as? NSNumber)
    }
}
