package import FocalImaging
package import Foundation

/// Opens an output Focal wrote, in any format it writes. Focal does not read JPEG XL (libvips
/// marks its loader untrusted and Focal keeps it blocked), so a JPEG XL output is decoded by
/// libvips's own command line (`vips copy`, the real decoder) into PNG first.
package enum OutputDecoding {
    /// The output opened, and the format libvips read it as (`jxl` for a JPEG XL output).
    package static func open(_ data: Data) throws -> (image: SourceImage, format: String) {
        guard data.starts(with: [0xFF, 0x0A]) || data.starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) else {
            let image = try SourceImage.open(data: data)
            return (image, image.format)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-jxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("out.jxl"), output = folder.appendingPathComponent("out.png")
        try data.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["copy", input.path, output.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadCorruptFile) }
        return (try SourceImage.open(data: try Data(contentsOf: output)), "jxl")
    }
}
