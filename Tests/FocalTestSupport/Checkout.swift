package import Focal
package import Foundation

/// Paths of the checkout, found from this file's location.
package enum Checkout {
    /// The package root.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// The model folder `make models` fills.
    package static let models = root.appendingPathComponent("models").path
    /// The development photos beside the checkout, when present.
    package static let evalPhotos = root.deletingLastPathComponent().appendingPathComponent("shared/eval/dev").path

    /// A photo in `Fixtures/`.
    package static func fixture(_ name: String) -> String { root.appendingPathComponent("Fixtures/\(name)").path }

    /// The `focal` executable built beside the test bundle.
    package static var focal: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("focal").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return root.appendingPathComponent(".build/debug/focal").path
    }
}

/// The real photos in `Fixtures/`.
package enum Fixture: String, CaseIterable, Sendable {
    case astronaut = "astronaut.png"
    case chelsea = "chelsea.png"
    case coffee = "coffee.png"
    case graceHopper = "grace_hopper.jpg"

    /// The file's path.
    package var path: String { Checkout.fixture(rawValue) }

    /// The file's bytes.
    /// - Throws: `CocoaError(.fileNoSuchFile)` naming the fix when the fixtures were not fetched.
    package var data: Data {
        get throws {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "missing fixture \(path): run scripts/setup.sh fixtures"])
            }
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
}

/// A fresh folder under the system temporary directory, removed by `remove()`.
package struct Scratch: Sendable {
    /// The folder.
    package let url: URL
    /// The folder's path.
    package var path: String { url.path }

    /// Creates the folder.
    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("focal-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    package func file(_ name: String) -> String { url.appendingPathComponent(name).path }
    /// The path of `name` in the folder.
    package func path(_ name: String) -> String { file(name) }
    /// The names in the folder, sorted.
    package var contents: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }
    /// Deletes the folder and everything in it.
    package func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A pipeline on the checkout's models, whose inputs may take 300 s instead of 30: the whole suite
/// runs at once on a few cores, so a test's crop shares them with hundreds of others (tests of
/// deadlines set their own).
package func makePipeline(
    detectors: [any SubjectDetecting] = [], stages: [DetectionStage] = [], _ configure: (inout FocalConfiguration) -> Void = { _ in }
) -> FocalPipeline {
    var configuration = FocalConfiguration(modelsPath: Checkout.models)
    configuration.limits.timeout = .seconds(300)
    configure(&configuration)
    return FocalPipeline(configuration: configuration, detectors: detectors, stages: stages)
}
