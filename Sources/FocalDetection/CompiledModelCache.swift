import Foundation

/// The folder of compiled models, made safe to use: created owner-only when missing, and refused
/// (detection then compiles without a cache) when it is a symbolic link, not a folder, or another
/// user's. Blobs go in a subfolder per OpenVINO version, so that no version reads another's.
enum CompiledModelCache {
    /// The folder to hand OpenVINO, or nil with the reason it cannot be used.
    static func prepare(_ folder: String, runtimeVersion: String) -> (path: String?, problem: String?) {
        let safeVersion = String(runtimeVersion.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.prefix(64))
        let path = folder + "/openvino-" + safeVersion
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return (nil, "cannot create \(path): \(error.localizedDescription)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { return (nil, "cannot read \(path)") }
        guard status.st_mode & S_IFMT == S_IFDIR else { return (nil, "\(path) is not a folder (a link or a file)") }
        guard status.st_uid == geteuid() else { return (nil, "\(path) belongs to another user") }
        guard status.st_mode & 0o022 == 0 else { return (nil, "\(path) is writable by others") }
        return (path, nil)
    }
}
