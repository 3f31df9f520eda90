import FocalFetch
import FocalImaging
import Foundation
import Synchronization

extension FocalPipeline {
    /// An overlay's identity for a result key, and its image when it had to be read for it.
    ///
    /// - A file is read and hashed once per stamp (`OverlayIdentity.stamp(of:)`: one `stat` per
    ///   request after that; a 20 MB watermark cost 38 ms of CPU a cached hit when it was hashed
    ///   every time).
    /// - A URL is read once per `OverlayIdentity.urlLifetime`; while its host fails, its last
    ///   identity serves cached crops for `OverlayIdentity.staleIfError` (a crop that must be
    ///   rendered still needs the image, and fails as the fetch did).
    /// - An object is identified by its ETag (one `HEAD`), bytes in memory by their hash, an
    ///   input whose identity the door knows by that.
    /// - Throws: What reading the overlay throws (`FetchError`, `StorageError`, `ImagingError`…).
    func overlayIdentity(of input: ImageInput) async throws -> (contentID: String?, image: SourceImage?) {
        if let known = input.contentID { return (known, nil) }
        let now = ContinuousClock.now
        switch input.location {
        case let .file(path) where !ObjectAddress.looksLikeOne(path):
            if let stamp = OverlayIdentity.stamp(of: path), let known = overlayIdentities.withLock({ $0["file:" + path] }), known.stamp == stamp {
                return (known.contentID, nil)
            }
            return try await readOverlay(input)
        case let .url(url):
            let known = overlayIdentities.withLock { $0["url:" + url.absoluteString] }
            if let known, now < known.read + OverlayIdentity.urlLifetime { return (known.contentID, nil) }
            do {
                return try await readOverlay(input)
            } catch {
                guard let known, now < known.read + OverlayIdentity.staleIfError else { throw error }
                return (known.contentID, nil)
            }
        default:
            let (_, identity) = try await fetched(input, identity: nil)
            return (identity?.contentID, nil)
        }
    }

    /// An overlay's image for a render, read now and identified from what was read (the identity
    /// it is rendered under, and remembered): an overlay changed since `overlayIdentity(of:)`
    /// looked is rendered under its new identity, never under the old one.
    func openOverlay(_ input: ImageInput) async throws -> (contentID: String?, image: SourceImage) {
        let (id, image) = try await readOverlay(input)
        return (id ?? input.contentID, image)
    }

    /// Reads an overlay's bytes once: its identity and its image. A file's or a URL's identity is
    /// remembered (a file's under the stamp it had before it was read, so that a change while it
    /// was read is seen next time).
    private func readOverlay(_ input: ImageInput) async throws -> (String?, SourceImage) {
        let now = ContinuousClock.now
        var remember: (key: String, stamp: String?)?
        switch input.location {
        case let .file(path) where input.contentID == nil:
            remember = OverlayIdentity.stamp(of: path).map { ("file:" + path, $0) }
        case let .url(url) where input.contentID == nil:
            remember = ("url:" + url.absoluteString, nil)
        default:
            break
        }
        let (location, identity) = try await fetched(input, identity: Self.givenIdentity(input))
        let image = try await open(location, identifiedAs: identity?.contentID)
        if let remember, let id = identity?.contentID {
            rememberOverlay(remember.key, OverlayIdentity(contentID: id, stamp: remember.stamp, read: now))
        }
        return (identity?.contentID, image)
    }

    private func rememberOverlay(_ key: String, _ identity: OverlayIdentity) {
        overlayIdentities.withLock { known in
            if known.count >= OverlayIdentity.entries, known[key] == nil, let any = known.keys.first { known[any] = nil }
            known[key] = identity
        }
    }
}
