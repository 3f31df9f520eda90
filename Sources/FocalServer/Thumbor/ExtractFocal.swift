import Focal
import Foundation

/// thumbor's `extract_focal()`: the image part is itself a thumbor URL (of this server or
/// another, e.g. `thumbor.example/unsafe/240x220:480x260/photo.jpg`) whose manual crop is the
/// part someone chose; that crop becomes the focal region and the inner URL's image the source.
///
/// The image part is read as thumbor's filter reads it: everything up to the first `/` (a host,
/// with its scheme) is dropped, the rest must be a thumbor URL with `unsafe` or a signature (not
/// checked: the outer URL is what is verified); without a crop, its image is read the same way,
/// at most 10 levels deep. An image part that is not such a URL (a plain path or source URL, as
/// Pocket's image cache sends with every request) leaves the request as it is.
enum ExtractFocal {
    /// The inner URL's image part and its crop (left, top, right, bottom in source pixels), or nil
    /// when `image` holds no thumbor URL with a crop.
    /// - Throws: `ServerError` (`request.invalid`) for a crop whose numbers are too large.
    static func find(in image: String) throws(ServerError) -> (image: String, crop: (left: Int, top: Int, right: Int, bottom: Int))? {
        guard let host = hostPrefix, let url = thumborURL else { return nil }
        var text = image
        for _ in 0..<10 {
            let range = NSRange(text.startIndex..., in: text)
            text = host.stringByReplacingMatches(in: text, range: range, withTemplate: "")
            let whole = NSRange(text.startIndex..., in: text)
            guard let match = url.firstMatch(in: text, range: whole) else { return nil }
            func group(_ index: Int) -> String? {
                guard let range = Range(match.range(at: index), in: text) else { return nil }
                return String(text[range])
            }
            guard let inner = group(7), !inner.isEmpty, group(1) != nil || group(2) != nil else { return nil }
            let written = (3...6).compactMap(group)
            if written.count == 4 {
                // As thumbor, the first crop found is the one; a number Focal cannot hold is refused.
                let corners = written.compactMap { $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) ? Int($0) : nil }
                guard corners.count == 4 else {
                    throw ServerError.invalid("extract_focal() found the crop \(written.joined(separator: ",").excerpt(60)) with a number too large")
                }
                return (inner, (corners[0], corners[1], corners[2], corners[3]))
            }
            text = inner
        }
        return nil
    }

    /// thumbor's `^(https?://)?.*?/`: a host (and scheme) up to the first slash.
    private static let hostPrefix = try? NSRegularExpression(pattern: "^(?:https?://)?.*?/")

    /// libthumbor's URL grammar. Groups: 1 `unsafe`, 2 a signature, 3-6 the crop's left, top,
    /// right and bottom, 7 the image.
    private static let thumborURL = try? NSRegularExpression(
        pattern: "^/?(?:(?:(unsafe)|(.+?))/)?(?:debug/)?(?:meta/)?(?:trim(?::(?:top-left|bottom-right))?(?::\\d+)?/)?"
            + "(?:(\\d+)x(\\d+):(\\d+)x(\\d+)/)?(?:(?:adaptive-)?(?:full-)?fit-in/)?(?:-?(?:\\d+|orig)?x-?(?:\\d+|orig)?/)?"
            + "(?:(?:left|right|center)/)?(?:(?:top|bottom|middle)/)?(?:smart/)?(?:filters:.+?\\)/)?(.+)")
}
