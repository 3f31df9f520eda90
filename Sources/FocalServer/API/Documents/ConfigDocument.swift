import Focal
import FocalImaging

/// `GET /v1/config`: what the web page and clients need to know about this service, and the crop
/// option table.
struct ConfigDocument: Encodable {
    /// One crop option as the table declares it.
    struct Option: Encodable {
        let name: String
        let filter: String?
        let values: String
        let `default`: String
        let summary: String

        private enum Keys: String, CodingKey { case name, filter, values, `default`, summary }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(name, forKey: .name)
            try c.encode(filter, forKey: .filter)  // null for an option a URL gives otherwise
            try c.encode(values, forKey: .values)
            try c.encode(`default`, forKey: .default)
            try c.encode(summary, forKey: .summary)
        }
    }

    let unsafe: Bool
    let signed: Bool
    let writes: Bool
    let root: Bool
    let maxOutputSide: Int
    /// Signed-only: reads of the JSON API need the token (or a request signature).
    let signedReads: Bool
    let publicPhotos: Bool
    /// `POST /v1/page-urls` signs the page's own image URLs for anyone (`--key --public-photos`).
    let pageURLs: Bool
    /// The long sides `/v1/page-urls` signs (`PageURLLadder.sides`), when it signs: the page's
    /// elements take their sizes from it (`<focal-img ladder>`).
    let pageURLSides: [Int]?
    let version: String
    let options: [Option]
    /// The words for kinds of subject that every door takes (`SubjectKindNames`).
    let kinds: Kinds
    /// The output formats this server's libvips writes (`FormatDescriptor.writable`), by their
    /// first name, in the option table's order: `format(…)` takes these and `auto`.
    let formats: [String]

    /// The vocabulary of kinds: each kind with its label and colour, each group's kinds, and the
    /// words `kinds(…)` and `redact(…)` accept.
    struct Kinds: Encodable {
        struct Kind: Encodable {
            let name: String
            let label: String
            let colour: String
        }

        let all: [Kind]
        let groups: [String: [String]]
        let preferable: [String]
        let redactable: [String]

        init() {
            all = SubjectKindTraits.all.map { Kind(name: $0.kind.rawValue, label: $0.label, colour: $0.colour) }
            groups = Dictionary(uniqueKeysWithValues: SubjectKindNames.groups.flatMap { group in group.words.map { ($0, group.kinds.map(\.rawValue)) } })
            preferable = SubjectKindNames.words(for: SubjectPreference.nameable)
            redactable = SubjectKindNames.words(for: Redaction.redactable)
        }
    }
    /// Where to load `<focal-img>` from for good: its versioned, immutable path and its
    /// Subresource Integrity, for `<script type="module" src=... integrity=...>`; the same for
    /// its stylesheet when the server has one.
    let element: Element

    struct Element: Encodable {
        let script: String?
        let integrity: String?
        let style: String?
        let styleIntegrity: String?
    }

    init(_ configuration: ServerConfiguration) {
        unsafe = configuration.allowUnsafe
        signed = !configuration.keys.isEmpty
        writes = configuration.token != nil
        root = configuration.root != nil
        maxOutputSide = configuration.pipeline.limits.maxOutputSide
        signedReads = configuration.signedOnly
        publicPhotos = configuration.publicPhotos
        pageURLs = configuration.signedOnly && configuration.publicPhotos
        pageURLSides = pageURLs ? PageURLLadder.sides : nil
        version = FocalVersion.string
        let assets = WebAssets.shared
        element = Element(
            script: assets.versionedPath(of: "focal-img.js"), integrity: assets.files["focal-img.js"]?.integrity,
            style: assets.versionedPath(of: "focal-img.css"), styleIntegrity: assets.files["focal-img.css"]?.integrity)
        options = CropOption.all.map {
            Option(name: $0.name, filter: $0.filter, values: $0.values, default: $0.defaultText, summary: $0.summary)
        }
        kinds = Kinds()
        formats = FormatDescriptor.all.filter { FormatDescriptor.writable.contains($0.format) }.map { $0.names[0] }
    }
}
