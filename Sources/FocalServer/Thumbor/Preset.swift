public import Focal
import FocalCore
/// A named fragment of thumbor's URL grammar an operator gives (`focal serve --preset
/// thumb=400x400/smart/filters:kinds(face):format(auto)`), used in a URL as `filters:preset(thumb)`:
/// the URL is read as if it were written with the fragment's options and filters (imgproxy's and
/// thumbor's shortener presets). With `--presets-only`, only such URLs are served.
public struct Preset: Sendable, Hashable {
    /// Its name: 1 to 40 of `a-z`, `0-9`, `-` and `_`.
    public let name: String
    /// The options before the filters (`400x400`, `smart`), as path parts.
    public let options: [String]
    /// Its filters, each `name(arguments)`.
    public let filters: [String]

    /// The most presets one server takes.
    public static let maxCount = 100

    /// Reads `NAME=FRAGMENT`, the fragment being what goes between `/unsafe/` and the image.
    /// - Throws: `ServerError` (`request.invalid`) naming what is wrong (checked at start-up).
    public init(text: String) throws(ServerError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw ServerError.invalid("a preset is NAME=OPTIONS (thumb=400x400/smart/filters:kinds(face)); '\(text.prefix(60))' has no =")
        }
        let name = String(text[..<equals]), fragment = String(text[text.index(after: equals)...])
        guard Self.isName(name) else {
            throw ServerError.invalid("a preset's name is 1 to 40 of a-z, 0-9, - and _; '\(name.prefix(60))' is not")
        }
        // Read as a URL would be, with an image after it: what it means is checked now.
        let url = try ThumborURL(path: "/unsafe/" + fragment + "/preset.jpg")
        guard url.image == "preset.jpg", !url.meta, !url.debug else {
            throw ServerError.invalid("preset \(name) must hold options and filters only (thumb=400x400/smart/filters:kinds(face))")
        }
        guard !url.filters.contains(where: { $0.name == "preset" }) else { throw ServerError.invalid("preset \(name) may not use another preset") }
        _ = try ImageRequest(url)
        self.name = name
        options = url.canonicalOptions
        filters = url.filters.map { "\($0.name)(\($0.arguments))" }
    }

    /// The crop options its filters stand for (its size and crop aside), as `/v1/plan`'s
    /// `"preset"` and `focal crop --preset` read it.
    /// - Throws: `ServerError` (`request.invalid`) when its filters do not read (checked when made).
    public func filterOptions() throws(ServerError) -> FocalOptions {
        guard !filters.isEmpty else { return FocalOptions() }
        // `smart/`: the other doors detect unless told not to (`detect`), a URL only when it says so.
        return try ImageRequest(ThumborURL(path: "/unsafe/smart/filters:" + filters.joined(separator: ":") + "/preset.jpg")).options
    }

    /// Whether `text` is a preset's name.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 40 && text.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
    }

    /// `url` read through the preset it names (`filters:preset(NAME)`), or nil when it names
    /// none: the preset's options, its filters then the URL's other filters (a later setting
    /// wins), and the URL's image.
    /// - Throws: `ServerError` (`request.invalid`) for an unknown preset, two presets, or a URL
    ///   that gives options of its own besides a preset.
    static func expand(_ url: ThumborURL, presets: [String: Preset]) throws(ServerError) -> ThumborURL? {
        let named = url.filters.filter { $0.name == "preset" }
        guard let use = named.first else { return nil }
        guard named.count == 1 else { throw ServerError.invalid("a URL uses one preset(…); this one gives \(named.count)") }
        let name = use.arguments.trimmingSpaces
        guard let preset = presets[name] else {
            let known = presets.keys.sorted().prefix(20).joined(separator: ", ")
            throw ServerError.invalid("no preset is named '\(name.prefix(40))'; this server has \(known.isEmpty ? "none" : known)")
        }
        // A preset that gives a size (or crop, alignment, smart) gives all of them; one of
        // filters alone leaves them to the URL (as `<focal-img preset>` writes its size).
        let lead = url.canonicalOptions.filter { $0 == "debug" || $0 == "meta" }
        let own = url.canonicalOptions.filter { $0 != "debug" && $0 != "meta" }
        guard preset.options.isEmpty || own.isEmpty else {
            throw ServerError.invalid("a URL with preset(\(name)) gives no size, crop or alignment of its own: the preset does; put them in filters or another preset")
        }
        let others = url.filters.filter { $0.name != "preset" }.map { "\($0.name)(\($0.arguments))" }
        let all = preset.filters + others
        let options = preset.options.isEmpty ? own : preset.options
        let parts = lead + options + (all.isEmpty ? [] : ["filters:" + all.joined(separator: ":")]) + [url.image]
        return try ThumborURL(path: "/unsafe/" + parts.joined(separator: "/"))
    }
}
