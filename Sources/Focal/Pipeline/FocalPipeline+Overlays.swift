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
            let key = "file:" + path
            let stamp = OverlayIdentity.stamp(of: path)
            if let stamp, let known = overlayIdentities.withLock({ $0[key] }), known.stamp == stamp { return (known.contentID, nil) }
            let (id, image) = try await readOverlay(input)
            if let id, let stamp { rememberOverlay(key, OverlayIdentity(contentID: id, stamp: stamp, read: now)) }
            return (id, image)
        case let .url(url):
            let key = "url:" + url.absoluteString
            let known = overlayIdentities.withLock { $0[key] }
            if let known, now < known.read + OverlayIdentity.urlLifetime { return (known.contentID, nil) }
            do {
                let (id, image) = try await readOverlay(input)
                if let id { rememberOverlay(key, OverlayIdentity(contentID: id, stamp: nil, read: now)) }
                return (id, image)
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
        let now = ContinuousClock.now
        switch input.location {
        case let .file(path) where input.contentID == nil:
            if let id, let stamp = OverlayIdentity.stamp(of: path) { rememberOverlay("file:" + path, OverlayIdentity(contentID: id, stamp: stamp, read: now)) }
        case let .url(url) where input.contentID == nil:
            if let id { rememberOverlay("url:" + url.absoluteString, OverlayIdentity(contentID: id, stamp: nil, read: now)) }
        default:
            break
        }
        return (id ?? input.contentID, image)
    }

    /// Reads an overlay's bytes once: its identity and its image.
    private func readOverlay(_ input: ImageInput) async throws -> (String?, SourceImage) {
        let (location, identity) = try await fetched(input, identity: Self.givenIdentity(input))
        return (identity?.contentID, try await open(location, identifiedAs: identity?.contentID))
    }

    private func rememberOverlay(_ key: String, _ identity: OverlayIdentity) {
        overlayIdentities.withLock { known in
            if known.count >= OverlayIdentity.entries, known[key] == nil, let any = known.keys.first { known[any] = nil }
            known[key] = identity
        }
    }
}
