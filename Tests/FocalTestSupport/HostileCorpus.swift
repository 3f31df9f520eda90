package import Focal
import Foundation

/// The corpus of hostile inputs that `make corpus` (scripts/focalscripts/corpus.py) builds in `.cache/corpus/`,
/// with what each must give: `ok`, or one of the error codes its manifest names.
package struct HostileCorpus: Sendable {
    /// One file of the corpus.
    package struct Entry: Sendable {
        /// The file's name in the corpus folder.
        package let name: String
        /// Its path.
        package let path: String
        /// "ok", or the error codes it may be refused with (for `--size 400x400`).
        package let expect: [String]
        /// What it is.
        package let note: String

        /// Whether a result (`"ok"`) or an error code is one the manifest allows.
        package func allows(_ outcome: String) -> Bool { expect.contains(outcome) }
    }

    /// The corpus folder.
    package static let folder = Checkout.root.appendingPathComponent(".cache/corpus").path

    /// Every file, by name.
    package let entries: [Entry]

    /// Reads the manifest.
    /// - Throws: naming the command that builds the corpus when it is missing.
    package init() throws {
        let manifest = Self.folder + "/manifest.json"
        guard let data = FileManager.default.contents(atPath: manifest),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let files = object["files"] as? [String: [String: Any]]
        else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "no corpus at \(manifest): run `make corpus` (scripts/focalscripts/corpus.py)"])
        }
        entries = files.keys.sorted().map { name in
            let file = files[name] ?? [:]
            return Entry(
                name: name, path: Self.folder + "/" + name, expect: file["expect"] as? [String] ?? [],
                note: file["note"] as? String ?? "")
        }
    }
}

/// Every error code Focal defines: a typed error must carry one of these.
package let knownErrorCodes: Set<ErrorCode> = Set(ErrorCode.all)
