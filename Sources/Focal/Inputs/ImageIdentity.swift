import Foundation

/// Who an image is, for caches, shared jobs and saved crops.
enum ImageIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The SHA-256 of its bytes, 64 lowercase hex digits: its results are cached and shared, and
    /// crops saved for it apply.
    case content(String)
    /// The SHA-256 of a caller's cache name (so that a name cannot spell out another key's
    /// fields): its results are cached and shared; no saved crop applies.
    case name(String)
    /// Where it is (a file path, a URL, or a one-off): only for sharing the jobs of the same
    /// input in flight, never for caching.
    case location(String)

    /// The identity of a content ID a caller gives, when it is 64 hex digits.
    init?(contentID: String) {
        let id = contentID.lowercased()
        guard id.utf8.count == 64, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        self = .content(id)
    }

    /// The identity of the SHA-256 of loaded bytes.
    init(digestOf data: Data) { self = .content(ContentDigest.of(data)) }

    /// The identity of a caller's cache name.
    init(cacheName: String) { self = .name(ContentDigest.of(Data(cacheName.utf8))) }

    /// An identity for sharing the jobs of one input when its content is not identified.
    init(location: ImageInput.Location) {
        switch location {
        case let .file(path): self = .location("file:" + path)
        case let .url(url): self = .location("url:" + url.absoluteString)
        case let .object(address): self = .location(address.description)
        case .data: self = .location("unshared:" + UUID().uuidString)
        case let .blank(blank): self = .location(blank.description)
        }
    }

    /// The identity of the image as a request sees it: page `page` (0-based) alone, turned `turn`
    /// degrees; itself when neither is asked for. Subjects found in a page or a turned image are
    /// cached under it; no saved crop applies to it (saved crops are the image's as stored).
    func viewed(page: Int?, turn: Int) -> ImageIdentity {
        guard page != nil || turn != 0 else { return self }
        let view = "page \(page.map(String.init) ?? "-") turned \(turn) of \(description)"
        if case .location = self { return .location(view) }
        return .name(ContentDigest.of(Data(view.utf8)))
    }

    /// The identity of frame `index` of this image's animation, under which its subjects are
    /// cached; nil for a location (never cached).
    func frame(_ index: Int) -> ImageIdentity? {
        if case .location = self { return nil }
        return .name(ContentDigest.of(Data("frame \(index) of \(description)".utf8)))
    }

    /// The SHA-256 (hex) of a content identity; nil for the others.
    var contentID: String? {
        guard case let .content(id) = self else { return nil }
        return id
    }

    /// The identity as keys spell it: `sha256:<hex>`, `name:<hex>` or the location.
    var description: String {
        switch self {
        case let .content(id): "sha256:" + id
        case let .name(digest): "name:" + digest
        case let .location(text): text
        }
    }
}
