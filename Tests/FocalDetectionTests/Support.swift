import Focal
import Foundation
import Testing

/// Paths of the checkout, found from this file's location.
enum Checkout {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let models = ModelDirectory(path: root.appendingPathComponent("models").path)
    static func fixture(_ name: String) -> String { root.appendingPathComponent("Fixtures/\(name)").path }
}

/// A request for a fixture photo's pixels, decoded for real.
func request(for name: String) throws -> DetectionRequest {
    let image = try SourceImage.open(path: Checkout.fixture(name))
    return DetectionRequest(name: name, imageSize: image.size) { side, enlarge in
        try image.proxy(longSide: side, enlarge: enlarge)
    }
}
