import Focal
import Foundation

/// Expands the inputs a user named: a folder becomes the images in it, sorted by name; files,
/// URLs and `s3://` objects stay as they are.
enum InputList {
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif", "jxl",
    ]

    /// The name an output takes from an input: a file's name, or a URL's or an object key's last
    /// path part, without the extension ("image" when a URL has no path).
    static func stem(of input: String) -> String {
        if case let .url(url) = ImageInput.argument(input).location {
            // The last part of the path as sent (still percent-encoded), so that an encoded
            // "%2F.." can never lead out of the output folder.
            let encoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
            let last = encoded.split(separator: "/").last.map(String.init) ?? ""
            let decoded = last.removingPercentEncoding ?? last
            let stem = safe((decoded as NSString).deletingPathExtension)
            if !stem.isEmpty { return stem }
            let host = safe(url.host ?? "")
            return host.isEmpty ? "image" : host
        }
        if case let .object(address) = ImageInput.argument(input).location {
            // The key's last part, made safe: a key may hold "..", which must not name a folder.
            let last = address.key.split(separator: "/").last.map(String.init) ?? ""
            let stem = safe((last as NSString).deletingPathExtension)
            return stem.isEmpty ? "image" : stem
        }
        return ((input as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// A file name with no path separators and no leading dots.
    private static func safe(_ name: String) -> String {
        let replaced = String(name.map { $0 == "/" || $0 == "\\" || $0 == "\0" ? "_" : $0 })
        return String(replaced.drop { $0 == "." })
    }

    /// The inputs with each folder replaced by its images, and the folders that held none.
    static func expand(_ inputs: [String]) -> (files: [String], emptyFolders: [String]) {
        var files: [String] = [], empty: [String] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory), isDirectory.boolValue else {
                files.append(input)
                continue
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []
            let base = input.hasSuffix("/") ? String(input.dropLast()) : input
            let images = names.filter { imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) && !$0.hasPrefix(".") }
                .sorted().map { base + "/" + $0 }
            if images.isEmpty { empty.append(input) } else { files += images }
        }
        return (files, empty)
    }

    /// Reports each folder that held no image as a failed input; returns how many there were.
    static func reportEmpty(_ folders: [String], json: Bool) -> Int {
        for folder in folders {
            InputFailure(
                input: folder, code: .inputNotFound,
                message: "\(folder.oneLine): the folder holds no image (looked for \(imageExtensions.sorted().joined(separator: ", ")))"
            ).report(json: json)
        }
        return folders.count
    }
}
