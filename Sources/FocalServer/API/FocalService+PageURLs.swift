import Focal
import Foundation
import Hummingbird

/// `POST /v1/page-urls`: the image URLs the gallery shows, signed for anyone, on a server whose
/// photos are public (`--key` with `--public-photos`), so that a visitor without the token sees
/// the page while the server stays no open signer.
///
/// It takes `{"paths": [...]}` as `/v1/sign` does and answers `{"urls": [...]}`, but signs only
/// the gallery's own kinds of URL, and only of photos under the root:
/// - `WxH/[smart/][filters:format(auto)/]PATH`, each side 1...`maxSide` (a frame, smart or centred);
/// - `fit-in/SxS/[filters:format(auto)/]PATH`, S 1...`maxSide` (the original's preview).
/// No other option or filter, no remote URL, no upload id, no `meta/`: those need `/v1/sign` and
/// the token.
extension FocalService {
    /// The largest side a page URL may ask for.
    static let pageURLMaxSide = 2048

    func pageURLs(_ request: Request) async throws -> Response {
        guard !configuration.keys.isEmpty, !configuration.allowUnsafe, configuration.publicPhotos else {
            throw ServerError(
                .requestUnauthorized,
                configuration.allowUnsafe || configuration.keys.isEmpty
                    ? "this server takes unsafe URLs: nothing needs signing"
                    : "this server's photos are not public (no --public-photos): sign with /v1/sign and the token")
        }
        return try await signPaths(request) { path throws(ServerError) in try checkPagePath(path) }
    }

    /// Refuses a path that is not one of the gallery's kinds of URL of a photo under the root.
    func checkPagePath(_ path: String) throws(ServerError) {
        let url = try ThumborURL(path: "/unsafe/" + path)
        let refuse = { (why: String) -> ServerError in
            ServerError.invalid("\(path.oneLine) is not a URL the page signs: \(why); sign it with /v1/sign and the token")
        }
        guard !url.meta, url.manualCrop == nil, url.flip.isEmpty, url.horizontalAlignment == nil, url.verticalAlignment == nil
        else { throw refuse("only a size, smart/ and format(auto) are signed here") }
        guard url.filters.allSatisfy({ $0.name == "format" && $0.arguments == "auto" }) else {
            throw refuse("the only filter signed here is format(auto)")
        }
        let side = 1...Self.pageURLMaxSide
        switch (url.fitIn, url.width, url.height) {
        case let (nil, .pixels(w), .pixels(h)) where side.contains(w) && side.contains(h): break
        case let (.normal?, .pixels(w), .pixels(h)) where w == h && side.contains(w) && !url.smart: break
        default: throw refuse("the size must be WxH (or fit-in/SxS) with sides up to \(Self.pageURLMaxSide)")
        }
        guard case .file = try resolver.resolve(url.image) else { throw refuse("only photos under the root are signed here") }
    }
}
