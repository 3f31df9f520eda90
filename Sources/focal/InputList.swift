import Foundation

/// Expands the inputs a user named: a folder becomes the images in it, sorted by name.
enum InputList {
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif", "jxl",
    ]

    static func expand(_ inputs: [String]) -> [String] {
        inputs.flatMap { input -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue,
                let names = try? FileManager.default.contentsOfDirectory(atPath: input)
            else { return [input] }
            let base = input.hasSuffix("/") ? String(input.dropLast()) : input
            return names.filter { imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) && !$0.hasPrefix(".") }
                .sorted().map { base + "/" + $0 }
        }
    }
}
