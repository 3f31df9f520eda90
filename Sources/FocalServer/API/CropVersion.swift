import Crypto
import Foundation

/// What an image URL's answer depends on beyond the URL itself: the image's content, Focal's crop
/// configuration (release, models, thresholds, precision: `FocalPipeline.configurationTag`) and
/// the saved crop that applies to its frame. A URL that carries its current version (`?v=VERSION`)
/// is answered `immutable`, since a change to any of them makes a new version, and so a new URL;
/// a URL without one, or with another, is answered as before (a smart crop revalidated on every
/// use), so that a saved crop still shows at once.
///
/// Written as 16 hex digits (the start of the SHA-256 of the content's SHA-256 and the
/// configuration) and, when a saved crop decides the frame, `.` and its revision (revisions only
/// grow, deletions included): `3fa71d325cbe78f6` or `3fa71d325cbe78f6.4`. Given in `X-Focal-Plan`
/// (`version`) and in each frame of `POST /v1/plan`.
struct CropVersion: Equatable, CustomStringConvertible {
    let description: String

    /// The version of an answer, or nil when it has none: the image's identity is not known, or
    /// the saved crops could not be read (a degraded answer is never cached for long).
    /// - Parameters:
    ///   - contentID: The image's SHA-256 in hex.
    ///   - configuration: `FocalPipeline.configurationTag` of the pipeline that answers.
    ///   - revision: The revision of the saved crop that decided the frame, if one did.
    ///   - savedCropsUnknown: Whether the saved crops could not be read.
    init?(contentID: String?, configuration: String, revision: Int?, savedCropsUnknown: Bool) {
        guard let contentID, !contentID.isEmpty, !savedCropsUnknown else { return nil }
        let digest = SHA256.hash(data: Data((contentID + "\n" + configuration).utf8))
        let prefix = digest.prefix(8).map { String(format: "%02x", $0) }.joined()
        description = revision.map { "\(prefix).\($0)" } ?? prefix
    }

    /// Whether a request's query names this version (`v=VERSION`, anywhere in the query).
    func isNamed(byQuery query: String?) -> Bool {
        guard let query, !query.isEmpty else { return false }
        return query.split(separator: "&").contains { $0 == "v=" + description }
    }

    /// `Cache-Control` of an answer whose URL carries its current version: a year in browsers;
    /// shared caches keep the operator's `s-maxage` (they are purged by tag anyway).
    static func immutableCaching(sharedMaxAge: Int) -> String { "public, max-age=31536000, s-maxage=\(sharedMaxAge), immutable" }
}
