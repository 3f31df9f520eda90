import Focal
import Foundation
import Hummingbird

/// Signing: `POST /v1/sign` (a write: any paths, with the token) and `POST /v1/page-urls`.
///
/// `POST /v1/page-urls`: the image URLs the gallery shows, signed for anyone, on a server whose
/// photos are public (`--key` with `--public-photos`), so that a visitor without the token sees
/// the page while the server stays no open signer.
///
/// It takes `{"paths": [...]}` as `/v1/sign` does and answers `{"urls": [...]}`, but signs only
/// the gallery's own URLs, written exactly as the page writes them, of photos under the root:
/// - `WxH/[smart/][filters:format(auto)/]PATH`, a frame, smart or centred, of a size on the
///   ladder (`PageURLLadder`);
/// - `fit-in/SxS/[filters:format(auto)/]PATH`, the original's preview, S on the preview ladder;
/// - `PATH` encoded as `encodeURIComponent` encodes each part, `:` kept (`FocalImageMarkup.encoded`).
/// No other option, filter, size or spelling; no remote URL, no upload id, no `meta/`: those
/// need `/v1/sign` and the token.
struct SigningController: Controller {
    let configuration: ServerConfiguration
    let signer: URLSigner
    let resolver: SourceResolver
    let bodies: RequestBodies

    func addRoutes(to routes: RouteCollection<FocalRequestContext>, writes: RouteCollection<FocalRequestContext>) {
        writes.post("/v1/sign") { request, _ in try await sign(request) }
        routes.post("/v1/page-urls") { request, _ in try await pageURLs(request) }
    }

    /// `POST /v1/sign` (token): signs `{"paths": [...]}` with the first key, for a page that
    /// cannot use unsafe URLs.
    func sign(_ request: Request) async throws -> Response {
        try await signPaths(request) { _ throws(ServerError) in }
    }

    /// Reads `{"paths": [...]}` (at most `maxSignPaths`) and answers `{"urls": [...]}`: each path,
    /// without a leading `/`, that `check` lets through, behind its signature.
    func signPaths(_ request: Request, check: (String) throws(ServerError) -> Void) async throws -> Response {
        struct Body: Decodable { var paths: [String] }
        let body = try await bodies.decode(Body.self, from: request)
        let most = configuration.requests.maxSignPaths
        guard body.paths.count <= most else { throw ServerError.invalid("sign at most \(most) paths at once") }
        let urls = try body.paths.map { path throws(ServerError) -> String in
            let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
            try check(trimmed)
            guard let signature = signer.sign(trimmed) else { throw ServerError(.requestInvalid, "this service has no key to sign with") }
            return "/" + signature + "/" + trimmed
        }
        return JSONAnswer.make(["urls": urls])
    }

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

    /// Refuses a path that is not one of the gallery's URLs of a photo under the root, as the page
    /// writes it.
    func checkPagePath(_ path: String) throws(ServerError) {
        let url = try ThumborURL(path: "/unsafe/" + path)
        let refuse = { (why: String) -> ServerError in
            ServerError.invalid("\(path.excerpt()) is not a URL the page signs: \(why); sign it with /v1/sign and the token")
        }
        // One signature per page URL: another spelling of one is not signed.
        let spelled = try ImageRequest(url).canonicalPath
        guard spelled == path else { throw ServerError(.requestNotCanonical, "the page writes \(spelled.excerpt()), not \(path.excerpt())") }
        guard !url.meta, !url.debug, url.trim == nil, url.manualCrop == nil, url.relativeCrop == nil, url.flip.isEmpty, url.horizontalAlignment == nil,
            url.verticalAlignment == nil
        else { throw refuse("only a size, smart/ and format(auto) are signed here") }
        guard url.filters.allSatisfy({ $0.name == "format" && $0.arguments == "auto" }) else {
            throw refuse("the only filter signed here is format(auto)")
        }
        let size: String
        switch (url.fitIn, url.width, url.height) {
        case let (nil, .pixels(w), .pixels(h)) where PageURLLadder.allows(width: w, height: h):
            size = "\(w)x\(h)/" + (url.smart ? "smart/" : "")
        case let (.normal?, .pixels(w), .pixels(h)) where w == h && PageURLLadder.previewSides.contains(w) && !url.smart:
            size = "fit-in/\(w)x\(h)/"
        default:
            throw refuse("the size must be on the page's ladder (long sides \(PageURLLadder.sides.map(String.init).joined(separator: ", ")); previews fit-in/SxS with S 200 to 2000 by 200)")
        }
        guard let relative = try resolver.resolve(url.image).relative else { throw refuse("only photos under the root are signed here") }
        // Written exactly as the page writes it: one URL per image, size and mode.
        let image = (try? FocalImageMarkup.encoded(relative)) ?? ""
        let canonical = size + (url.filters.isEmpty ? "" : "filters:format(auto)/") + image
        guard path == canonical else { throw refuse("the page writes it \(canonical.excerpt())") }
    }
}
