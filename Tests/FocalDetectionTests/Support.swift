import Focal
import FocalTestSupport
import Foundation
import Testing

/// The checkout's model folder.
let models = ModelDirectory(path: Checkout.models)

/// A request for a fixture photo's pixels, decoded for real.
func request(for name: String) throws -> DetectionRequest {
    let image = try SourceImage.open(path: Checkout.fixture(name))
    return DetectionRequest(name: name, imageSize: image.size) { side, enlarge in
        try image.proxy(longSide: side, enlarge: enlarge)
    }
}
