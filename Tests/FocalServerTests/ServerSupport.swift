import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// The keys and token test servers use.
enum TestSecrets {
    static let keys = ["first-key", "second-key"]
    static let token = "test-token"
}

/// A configuration for tests: the fixture photos as the root, the checkout's models, two keys,
/// a token, unsafe URLs allowed, an ephemeral port; `configure` changes what a test needs.
func testConfiguration(_ configure: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
    var pipeline = FocalConfiguration(modelsPath: Checkout.models)
    pipeline.workers = 2
    // The whole suite runs at once on a few cores: an input may take 300 s, not 30 (tests of
    // deadlines set their own).
    pipeline.limits.timeout = .seconds(300)
    var configuration = ServerConfiguration(
        host: "127.0.0.1", port: 0, root: Checkout.root.appendingPathComponent("Fixtures").path, keys: TestSecrets.keys,
        allowUnsafe: true, token: TestSecrets.token, pipeline: pipeline)
    // Inline previews within a minute, not 3 s: the suite shares the cores with itself.
    configuration.previewBudget = .seconds(60)
    configure(&configuration)
    return configuration
}

/// A quiet logger for tests (errors only).
let testLogger: Logger = {
    var logger = Logger(label: "focal-server-tests")
    logger.logLevel = .error
    return logger
}()

/// Builds the application and runs `body` against it, without a socket or on a live port.
func withServer<T: Sendable>(
    _ setup: TestingSetup = .router, _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
) async throws -> T {
    let app = try await buildApplication(configuration: testConfiguration(configure), logger: testLogger)
    return try await app.test(setup, body)
}

/// thumbor's signature of `path` under `key`, computed independently of `URLSigner`: the
/// reference value libthumbor gives for the same input is checked in URLSignerTests.
func signed(_ path: String, key: String = TestSecrets.keys[0]) -> String {
    "/" + URLSigner.signature(of: path, key: key) + "/" + path
}

extension TestResponse {
    /// The body's bytes.
    var data: Data { Data(body.readableBytesView) }
    /// The body parsed as a JSON object.
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: data) as? [String: Any] }
    /// The size of the image in the body, decoded for real.
    var imageSize: PixelSize? { try? SourceImage.open(data: data, name: "response").size }
}

/// `withServer` without a socket, with a changed configuration.
func withServer<T: Sendable>(
    _ configure: (inout ServerConfiguration) -> Void, _ body: @Sendable @escaping (any TestClientProtocol) async throws -> T
) async throws -> T {
    try await withServer(.router, configure, body)
}
