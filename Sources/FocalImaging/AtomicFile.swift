public import Foundation
import FocalCore

/// Writes files so that readers see the old content or the whole new one, never a part.
public enum AtomicFile {
    /// Writes `data` to a temporary name beside `path`, then renames it over `path`.
    /// - Throws: `ImagingError` with code `output.write_failed` naming the path.
    public static func write(_ data: Data, to path: String) throws(ImagingError) {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try data.write(to: temporary)
            if rename(temporary.path, url.path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw ImagingError(.outputWriteFailed, "cannot write the file", source: path, cause: reason)
            }
        } catch let error as ImagingError {
            throw error
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ImagingError(.outputWriteFailed, "cannot write the file", source: path, cause: error.localizedDescription)
        }
    }
}
