import ArgumentParser
import FocalCore

/// `--aspects 1:1,16:9`: the comma-separated `A:B` aspects `focal eval` and `focal sheet` crop to.
enum AspectList {
    /// The aspects both commands take by default.
    static let defaultText = "1:1,16:9,9:16,4:5,3:2"

    /// The aspects of `text`, in order.
    /// - Throws: `ValidationError` naming the form when a value is not `A:B`.
    static func parse(_ text: String) throws -> [(Int, Int)] {
        try text.split(separator: ",").map { part -> (Int, Int) in
            guard case let .aspect(w, h) = try CropTarget(parsing: String(part)) else {
                throw ValidationError("--aspects takes A:B values, e.g. 1:1,16:9")
            }
            return (w, h)
        }
    }
}
