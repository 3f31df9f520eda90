import Crypto
import Focal
@testable import FocalFetch
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// `focal serve --root s3://BUCKET/PREFIX` against a real store (SeaweedFS on loopback): the same
/// answers as from the same files on disk, uploads through one replica served by another at once,
/// the bucket listed, and every failure with its code and status, no secret anywhere.
@Suite(.serialized) final class BucketRootTests {
    let store: SeaweedServer
    static let photos = ["astronaut.png", "grace_hopper.jpg", "people/chelsea.png"]

    init() async throws {
        store = try await SeaweedServer.start(bucket: "photos")
        let client = S3Client(settings: store.settings)
        for photo in Self.photos {
            let data = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture((photo as NSString).lastPathComponent)))
            try await client.put(data, at: try #require(ObjectAddress(bucket: "photos", key: "site/" + photo)))
        }
        try await client.put(Data("not listed".utf8), at: try #require(ObjectAddress(bucket: "photos", key: "elsewhere/x.png")))
    }

    deinit { store.stop() }

    /// A server whose root is the bucket's `site/` prefix (its own data folder).
    func onBucket(_ change: @escaping (inout ServerConfiguration) -> Void = { _ in }) -> (inout ServerConfiguration) -> Void {
        let settings = store.settings
        return { configuration in
            configuration.root = "s3://photos/site"
            configuration.pipeline.storage = settings
            change(&configuration)
        }
    }

    static func json(_ object: Any) throws -> ByteBuffer { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object)) }

    /// What a server answers for each request: status, content type and body.
    static func answers(_ client: any TestClientProtocol) async throws -> [String: (HTTPResponse.Status, String?, Data)] {
        var out: [String: (HTTPResponse.Status, String?, Data)] = [:]
        for uri in [
            "/unsafe/400x225/smart/astronaut.png", "/unsafe/300x300/smart/filters:format(webp)/people/chelsea.png",
            "/unsafe/meta/320x240/smart/grace_hopper.jpg", "/unsafe/fit-in/200x200/grace_hopper.jpg",
        ] {
            out[uri] = try await client.execute(uri: uri, method: .get) { ($0.status, $0.headers[.contentType], $0.data) }
        }
        let plan = ["source": ["path": "people/chelsea.png"], "frames": [["aspect": "16:9"], ["width": 200, "height": 300]], "previews": true] as [String: Any]
        out["/v1/plan"] = try await client.execute(uri: "/v1/plan", method: .post, body: try Self.json(plan)) { ($0.status, $0.headers[.contentType], $0.data) }
        return out
    }

    /// A JSON answer, its image's identities (`id`) and the crop versions made from them
    /// (`version`) left out, as canonical text.
    static func withoutIdentities(_ data: Data) throws -> String {
        func strip(_ value: Any) -> Any {
            if let object = value as? [String: Any] { return object.filter { $0.key != "version" && $0.key != "id" }.mapValues(strip) }
            if let array = value as? [Any] { return array.map(strip) }
            return value
        }
        let stripped = strip(try JSONSerialization.jsonObject(with: data))
        return String(decoding: try JSONSerialization.data(withJSONObject: stripped, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func theBucketAnswersWhatTheFolderAnswers() async throws {
        // The same files in a folder laid out as the bucket is.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("focal-bucket-mirror-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for photo in Self.photos {
            try FileManager.default.createDirectory(atPath: folder + "/" + (photo as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Checkout.fixture((photo as NSString).lastPathComponent), toPath: folder + "/" + photo)
        }
        let fromDisk = try await withServer({ $0.root = folder }) { client in try await Self.answers(client) }
        let fromBucket = try await withServer(onBucket()) { client in try await Self.answers(client) }
        #expect(fromDisk.count == 5)
        for (uri, disk) in fromDisk {
            let bucket = try #require(fromBucket[uri])
            #expect(disk.0 == .ok && bucket.0 == .ok, "\(uri): \(bucket.0) \(String(decoding: bucket.2.prefix(200), as: UTF8.self))")
            #expect(bucket.1 == disk.1, "\(uri)")
            // A JSON answer names the image's identity (its id, its crops' versions): a file's
            // bytes, an object's key and ETag. Everything else is the same.
            if bucket.1?.hasPrefix("application/json") == true {
                let (fromBucket, fromDisk) = (try Self.withoutIdentities(bucket.2), try Self.withoutIdentities(disk.2))
                #expect(fromBucket == fromDisk, "\(uri): the same answer from the bucket as from disk")
            } else {
                #expect(bucket.2 == disk.2, "\(uri): the same bytes from the bucket as from disk")
            }
        }
    }

    @Test func theBucketIsListedWithItsIdentities() async throws {
        let settings = store.settings
        try await withServer(onBucket()) { client in
            let photos = try await client.execute(uri: "/v1/photos", method: .get) { try #require($0.json?["photos"] as? [[String: Any]]) }
            let byPath = Dictionary(uniqueKeysWithValues: photos.compactMap { p in (p["path"] as? String).map { ($0, p["id"] as? String) } })
            #expect(Set(byPath.keys) == Set(Self.photos), "only keys under the prefix, never the uploads")
            let chelsea = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("chelsea.png")))
            let id = try #require(byPath["people/chelsea.png"] ?? nil)
            // Identified by what the store says of the object (its key, ETag and length), not its bytes.
            let address = try #require(ObjectAddress(bucket: "photos", key: "site/people/chelsea.png"))
            let head = try await S3Client(settings: settings).head(address)
            #expect(id == ObjectSource.id(of: address, etag: try #require(head.etag), size: chelsea.count))
            #expect(id != SHA256.hash(data: chelsea).map { String(format: "%02x", $0) }.joined())
            // Its original, by id, and a crop by id.
            try await client.execute(uri: "/v1/images/\(id)", method: .get) { #expect($0.data == chelsea) }
            try await client.execute(uri: "/unsafe/100x100/smart/id:\(id)", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// A bucket of 10,000 keys is identified by its listing alone: no object is downloaded (each
    /// was, to hash it: 100,000 keys cost a replica 100,000 GETs and 110 s of CPU), and a crop
    /// of one of them is identified by a `HEAD` as the listing identified it.
    @Test func aLargeBucketIsIdentifiedWithoutDownloads() async throws {
        let client = S3Client(settings: store.settings)
        let count = 10_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in stride(from: worker, to: count, by: 8) {
                        let key = String(format: "many/p%05d.jpg", i)
                        try await client.put(Data("photo \(i)".utf8), at: try #require(ObjectAddress(bucket: "photos", key: key)))
                    }
                }
            }
            try await group.waitForAll()
        }
        let astronaut = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("astronaut.png")))
        let settings = store.settings
        try await client.put(astronaut, at: try #require(ObjectAddress(bucket: "photos", key: "many/zz-astronaut.png")))
        try await withServer(onBucket { $0.root = "s3://photos/many" }) { client in
            var photos: [[String: Any]] = []
            let until = ContinuousClock.now + .seconds(180)
            while photos.isEmpty, ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(200))
                photos = try await client.execute(uri: "/v1/photos", method: .get) { $0.json?["photos"] as? [[String: Any]] } ?? []
            }
            #expect(photos.count == 500, "the first 500 of \(count + 1), by path")
            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(decoding: $0.data, as: UTF8.self) }
            #expect(AnswerAbuseTests.counter(metrics, "focal_fetches_total") == 0, "no object downloaded to identify \(count + 1)")
            // A crop of one: identified by a HEAD as the listing identified it (its xkey).
            let address = try #require(ObjectAddress(bucket: "photos", key: "many/zz-astronaut.png"))
            let etag = try #require(try await S3Client(settings: settings).head(address).etag)
            try await client.execute(uri: "/unsafe/100x100/smart/zz-astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("xkey")!] == ObjectSource.id(of: address, etag: etag, size: astronaut.count))
            }
        }
    }

    /// A replica whose credentials the store refuses is not ready, says why and logs it (before,
    /// `/readyz` answered 200 while every image was a 502).
    @Test func refusedCredentialsAreNotReady() async throws {
        let lines = LogLines()
        var settings = store.settings
        settings.credentials = S3Credentials(accessKeyID: store.credentials.accessKeyID, secretAccessKey: "wrong-\(UUID().uuidString)")
        let wrong = settings
        let configuration = testConfiguration(onBucket { $0.pipeline.storage = wrong })
        let app = try await buildApplication(configuration: configuration, logger: Logger(label: "bucket") { _ in lines })
        try await app.test(.router) { client in
            var answer: (HTTPResponse.Status, String) = (.ok, "")
            let until = ContinuousClock.now + .seconds(30)
            while !answer.1.contains("storage.refused"), ContinuousClock.now < until {
                try await Task.sleep(for: .milliseconds(200))
                answer = try await client.execute(uri: "/readyz", method: .get) { ($0.status, String(decoding: $0.data, as: UTF8.self)) }
            }
            #expect(answer.0 == .serviceUnavailable, "\(answer.1)")
            #expect(answer.1.contains("server.not_ready"), "\(answer.1)")
        }
        let logged = lines.all.joined(separator: "\n")
        #expect(logged.contains("the root bucket cannot be listed") && logged.contains("SignatureDoesNotMatch"), "the failed listing is logged with the store's words")
    }

    @Test func anUploadThroughOneReplicaIsServedByAnother() async throws {
        let upload = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("coffee.png")))
        let id = try await withServer(onBucket()) { client in
            try await client.execute(
                uri: "/v1/images", method: .post, headers: [.authorization: "Bearer \(TestSecrets.token)"], body: ByteBuffer(bytes: upload)
            ) { response in
                #expect(response.status == .created)
                return try #require(response.json?["id"] as? String)
            }
        }
        // Another replica (its own data folder, nothing of the upload there): at once.
        try await withServer(onBucket()) { client in
            try await client.execute(uri: "/v1/images/\(id)", method: .get) { #expect($0.data == upload) }
            try await client.execute(uri: "/unsafe/120x120/smart/id:\(id)", method: .get) {
                #expect($0.status == .ok)
                #expect($0.imageSize == PixelSize(width: 120, height: 120))
            }
        }
        // Kept as an object under the prefix's hidden uploads folder.
        let kept = try await S3Client(settings: store.settings).head(try #require(ObjectAddress(bucket: "photos", key: "site/.focal-uploads/\(id)")))
        #expect(kept.size == upload.count)
    }

    @Test func failuresSayWhatHappened() async throws {
        try await withServer(onBucket()) { client in
            try await client.execute(uri: "/unsafe/100x100/smart/missing.png", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.json?["code"] as? String == "storage.not_found")
            }
            // Keys outside the prefix, other buckets and hidden folders are not the client's to name.
            for image in ["s3://other-bucket/a.png", "s3%3A%2F%2Fother-bucket%2Fa.png"] {
                try await client.execute(uri: "/unsafe/100x100/\(image)", method: .get) { response in
                    #expect(response.status == .notFound, "\(image)")
                    #expect(response.json?["code"] as? String == "storage.not_allowed", "\(image)")
                }
            }
            try await client.execute(uri: "/unsafe/100x100/.focal-uploads/x.png", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/unsafe/100x100/s3%3A%2F%2Fphotos%2Felsewhere%2Fx.png", method: .get) { #expect($0.status == .notFound) }
            // A key in an allowed bucket may not carry a part a hop could normalise away.
            try await client.execute(uri: "/unsafe/100x100/s3%3A%2F%2Fphotos%2Fsite%2F..%2Fsite%2F.focal-uploads%2Fx", method: .get) {
                #expect($0.status == .notFound)
            }
            // A key under the root's prefix by its s3:// address is the same photo as by its path.
            try await client.execute(uri: "/unsafe/100x100/s3%3A%2F%2Fphotos%2Fsite%2Fastronaut.png", method: .get) { #expect($0.status == .ok) }
        }
    }

    @Test func anAllowedBucketIsReadByItsKeysAlone() async throws {
        try await withServer(onBucket { $0.pipeline.storage?.allowedBuckets = ["photos"] }) { client in
            try await client.execute(uri: "/unsafe/100x100/smart/s3%3A%2F%2Fphotos%2Fsite%2Fpeople%2Fchelsea.png", method: .get) {
                #expect($0.status == .ok)
            }
            // Not an image: the store's bytes are refused as any other source's would be.
            try await client.execute(uri: "/unsafe/100x100/s3%3A%2F%2Fphotos%2Felsewhere%2Fx.png", method: .get) {
                #expect($0.status == .unsupportedMediaType)
            }
            for key in ["elsewhere/../site/.focal-uploads/x", "site/.focal-uploads/x", "elsewhere//x.png", "./x.png"] {
                let encoded = ("s3://photos/" + key).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                try await client.execute(uri: "/unsafe/100x100/\(encoded)", method: .get) { #expect($0.status == .notFound, "\(key)") }
            }
        }
    }

    @Test func refusedCredentialsAreA502WithoutTheSecret() async throws {
        let secret = "wrong-\(UUID().uuidString)"
        let lines = LogLines()
        var settings = store.settings
        settings.credentials = S3Credentials(accessKeyID: store.credentials.accessKeyID, secretAccessKey: secret)
        let wrong = settings
        var configuration = testConfiguration(onBucket { $0.pipeline.storage = wrong })
        configuration.logLevel = .debug
        let app = try await buildApplication(configuration: configuration, logger: Logger(label: "bucket") { _ in lines })
        try await app.test(.router) { client in
            try await client.execute(uri: "/unsafe/100x100/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .badGateway)
                #expect(response.json?["code"] as? String == "storage.refused")
                #expect(!String(decoding: response.data, as: UTF8.self).contains(secret))
            }
            try await client.execute(uri: "/metrics", method: .get) { #expect(!String(decoding: $0.data, as: UTF8.self).contains(secret)) }
        }
        let logged = lines.all.joined(separator: "\n")
        #expect(logged.contains("storage.refused"), "the refusal is logged")
        #expect(logged.contains("SignatureDoesNotMatch"), "with the store's words")
        #expect(!logged.contains(secret) && !logged.contains(store.credentials.secretAccessKey))
    }

    @Test func aStoreDownIsA503WithRetryAfterAndBackWithoutARestart() async throws {
        let store = store
        try await withServer(onBucket { $0.pipeline.storage?.totalTimeout = .seconds(3) }) { client in
            try await client.execute(uri: "/unsafe/90x90/smart/astronaut.png", method: .get) { #expect($0.status == .ok) }
            store.kill()
            let before = ContinuousClock.now
            try await client.execute(uri: "/unsafe/91x91/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.json?["code"] as? String == "storage.unavailable")
                #expect(response.headers[.retryAfter] != nil)
            }
            #expect(ContinuousClock.now - before < .seconds(5), "within the store's deadline")
            try store.launch()
            try await store.waitUntilReady()
            try await client.execute(uri: "/unsafe/92x92/smart/astronaut.png", method: .get) { #expect($0.status == .ok) }
        }
    }
}

/// Every log line, with its metadata, as text.
final class LogLines: LogHandler, @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.withLock { $0.append("\(event.level) \(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))") }
    }

    var all: [String] { lines.withLock { $0 } }
}
