/// What an image URL's answer depends on beyond the URL itself: the image's content and the
/// saved crop that applies to its frame. A URL that carries its current version (`?v=VERSION`)
/// is answered `immutable` for a year, since any change to either makes a new version, and so a
/// new URL; a URL without one, or with another, is answered as before (a smart crop revalidated
/// on every use), so that a saved crop still shows at once.
///
/// Written `<first 16 hex digits of the image's SHA-256>` and, when a saved crop decides the
/// frame, `.<its revision>` (revisions only grow, deletions included, so a version is never
/// reused for another crop): `3fa71d325cbe78f6` or `3fa71d325cbe78f6.4`. Given in `X-Focal-Plan`
/// (`version`) and in each frame of `POST /v1/plan`.
struct CropVersion: Equatable, CustomStringConvertible {
    let description: String

    /// The version of an answer, or nil when it has none: the image's identity is not known, or
    /// the saved crops could not be read (a degraded answer is never cached for long).
    /// - Parameters:
    ///   - contentID: The image's SHA-256 in hex.
    ///   - revision: The revision of the saved crop that decided the frame, if one did.
    ///   - savedCropsUnknown: Whether the saved crops could not be read.
    init?(contentID: String?, revision: Int?, savedCropsUnknown: Bool) {
        guard let contentID, contentID.utf8.count >= 16, !savedCropsUnknown else { return nil }
        let prefix = String(contentID.prefix(16))
        description = revision.map { "\(prefix).\($0)" } ?? prefix
    }

    /// Whether a request's query names this version (`v=VERSION`, anywhere in the query).
    func isNamed(byQuery query: String?) -> Bool {
        guard let query, !query.isEmpty else { return false }
        return query.split(separator: "&").contains { $0 == "v=" + description }
    }

    /// `Cache-Control` of an answer whose URL carries its current version.
    static let immutableCaching = "public, max-age=31536000, immutable"
}
