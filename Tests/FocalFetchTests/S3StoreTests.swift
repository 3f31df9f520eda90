import Focal
import FocalCore
@testable import FocalFetch
import FocalTestSupport
import Foundation
import Testing

/// The S3 client against a real store: SeaweedFS on loopback (`SeaweedServer`), started once for
/// the suite. Round trips, listings, refusals with their codes, limits, an unreachable store and
/// one killed and restarted, the connections reused, and no secret in any error.
@Suite(.serialized) final class S3StoreTests {
    let store: SeaweedServer

    init() async throws { store = try await SeaweedServer.start(bucket: "photos") }
    deinit { store.stop() }

    var client: S3Client { S3Client(settings: store.settings) }

    func address(_ key: String) throws -> ObjectAddress { try #require(ObjectAddress(bucket: store.bucket, key: key)) }

    @Test func everyListenerIsOnLoopback() async throws {
        // S3 answers before every gRPC port is open when the cores are busy: wait for them all
        // (at most 30 s), then check each.
        var listeners = store.listeners
        let deadline = ContinuousClock.now + .seconds(30)
        while listeners.count < 5, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            listeners = store.listeners
        }
        #expect(listeners.count >= 5, "master, volume, filer, S3 and their gRPC ports")
        for listener in listeners { #expect(listener.address == "0100007F", "port \(listener.port) listens on \(listener.address)") }
    }

    @Test func putGetHeadRoundTripWithKeysThatNeedEncoding() async throws {
        let photo = try LoopbackServer.fixture("astronaut.png")
        for key in ["team/astronaut.png", "été 2026/Ünïcødé (1)+a=b&c;d~e.png", "a/b/c/d.png"] {
            let object = try address(key)
            try await client.put(photo, at: object, contentType: "image/png")
            let got = try await client.get(object, maxBytes: 64 << 20)
            #expect(got.data == photo, "\(key)")
            let head = try await client.head(object)
            #expect(head.size == photo.count)
            #expect(head.etag != nil && head.etag == got.etag, "the ETag names the bytes")
        }
    }

    @Test func listingsArePaginatedAndDecoded() async throws {
        let keys = (0..<5).map { "listing/n\($0) é+&.jpg" }
        for key in keys { try await client.put(Data("x\(key)".utf8), at: try address(key)) }
        try await client.put(Data("other".utf8), at: try address("elsewhere/z.jpg"))
        var seen: [String] = [], token: String? = nil, pages = 0
        repeat {
            let page = try await client.list(bucket: store.bucket, prefix: "listing/", token: token, limit: 2)
            #expect(page.objects.count <= 2)
            seen += page.objects.map(\.key)
            token = page.next
            pages += 1
        } while token != nil && pages < 10
        #expect(seen.sorted() == keys.sorted())
        #expect(pages == 3)
    }

    @Test func aMissingKeyIsNotFound() async throws {
        await #expect { try await client.get(try address("no/such.jpg"), maxBytes: 1 << 20) } throws: {
            ($0 as? StorageError)?.code == .storageNotFound
        }
        await #expect { try await client.head(try address("no/such.jpg")) } throws: { ($0 as? StorageError)?.code == .storageNotFound }
    }

    @Test func aWrongSecretIsRefusedWithoutShowingIt() async throws {
        var settings = store.settings
        let secret = "wrong-secret-\(UUID().uuidString)"
        settings.credentials = S3Credentials(accessKeyID: store.credentials.accessKeyID, secretAccessKey: secret)
        let before = ContinuousClock.now
        do {
            _ = try await S3Client(settings: settings).get(try address("team/astronaut.png"), maxBytes: 1 << 20)
            Issue.record("a wrong secret was accepted")
        } catch let error as StorageError {
            #expect(error.code == .storageRefused)
            #expect(error.detail.contains("SignatureDoesNotMatch"), "\(error.detail)")
            for text in [error.description, error.detail, error.publicMessage, error.message] {
                #expect(!text.contains(secret) && !text.contains(store.credentials.secretAccessKey))
            }
        }
        #expect(ContinuousClock.now - before < .seconds(2), "a refusal is not retried")
        // An unknown key id too.
        settings.credentials = S3Credentials(accessKeyID: "nobody", secretAccessKey: secret)
        await #expect { try await S3Client(settings: settings).head(try address("team/astronaut.png")) } throws: {
            ($0 as? StorageError)?.code == .storageRefused
        }
    }

    @Test func anObjectOverTheLimitIsRefusedBeforeItsBodyIsRead() async throws {
        let object = try address("large/blob.bin")
        try await client.put(Data(count: 300_000), at: object)
        let reserved = Counter()
        await #expect {
            try await client.get(object, maxBytes: 100_000, reserve: { reserved.add($0) })
        } throws: { ($0 as? StorageError)?.code == .storageTooLarge }
        #expect(reserved.value == 0, "nothing was reserved for a body over the limit")
    }

    @Test func connectionsAreReused() async throws {
        let object = try address("reuse/one.bin")
        try await client.put(Data(count: 1000), at: object)
        let before = S3Client.connectionsOpened
        for _ in 0..<20 { _ = try await client.get(object, maxBytes: 1 << 20) }
        let opened = S3Client.connectionsOpened - before
        #expect(opened <= 1, "20 sequential reads opened \(opened) connections")
    }

    @Test func anUnreachableStoreIsUnavailableWithinItsDeadline() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        var settings = store.settings
        settings.endpoint = URL(string: "http://127.0.0.1:\(refusing.port)")
        settings.totalTimeout = .seconds(3)
        let before = ContinuousClock.now
        await #expect { try await S3Client(settings: settings).get(try address("a.jpg"), maxBytes: 1 << 20) } throws: {
            ($0 as? StorageError)?.code == .storageUnavailable
        }
        #expect(ContinuousClock.now - before < .seconds(4))
    }

    @Test func aKilledStoreIsUnavailableAndBackOnceRestarted() async throws {
        let object = try address("restart/kept.bin")
        try await client.put(Data("kept".utf8), at: object)
        store.kill()
        var settings = store.settings
        settings.totalTimeout = .seconds(3)
        await #expect { try await S3Client(settings: settings).get(object, maxBytes: 1 << 20) } throws: {
            ($0 as? StorageError)?.code == .storageUnavailable
        }
        try store.launch()
        try await store.waitUntilReady()
        let got = try await client.get(object, maxBytes: 1 << 20)
        #expect(got.data == Data("kept".utf8), "the same client reads again, no restart of its own")
    }
}

/// The pipeline reading `s3://` inputs from the same store: the same crops as from disk, an
/// object identified by its ETag (a HEAD), and an unchanged one not downloaded again.
extension S3StoreTests {
    @Test func cropsFromTheBucketAreTheCropsFromDisk() async throws {
        let path = Checkout.fixture("grace_hopper.jpg")
        let object = try address("people/grace hopper.jpg")
        try await client.put(try Data(contentsOf: URL(fileURLWithPath: path)), at: object, contentType: "image/jpeg")
        var configuration = FocalConfiguration(modelsPath: Checkout.models)
        configuration.storage = store.settings
        let pipeline = FocalPipeline(configuration: configuration)
        let fromDisk = try await pipeline.crop(.file(path), to: .aspect(width: 16, height: 9))
        let fromBucket = try await FocalPipeline(configuration: configuration).crop(.object(object), to: .aspect(width: 16, height: 9))
        #expect(fromBucket.data == fromDisk.data)
        #expect(fromBucket.plan == fromDisk.plan)
        // Identified by its key, ETag and length (a HEAD), not by hashing its bytes as a file is.
        let head = try await client.head(object)
        #expect(fromBucket.contentID == ObjectSource.id(of: object, etag: try #require(head.etag), size: head.size))
        #expect(fromBucket.contentID != fromDisk.contentID)

        // The same object at another size: known by its ETag, downloaded only to be decoded again.
        let reading = FocalPipeline(configuration: configuration)
        _ = try await reading.crop(.object(object), to: .size(width: 200, height: 200))
        #expect(reading.statistics.downloads == 1)
        let repeated = try await reading.crop(.object(object), to: .size(width: 200, height: 200))
        #expect(repeated.origin == .memoryCache)
        #expect(reading.statistics.downloads == 1, "a repeat costs a HEAD, not a download")
        // Replaced under the same key: a new ETag, so it is read again.
        try await client.put(try LoopbackServer.fixture("astronaut.png"), at: object, contentType: "image/png")
        let replaced = try await reading.crop(.object(object), to: .size(width: 200, height: 200))
        #expect(reading.statistics.downloads == 2)
        #expect(replaced.contentID != fromDisk.contentID)

        // Without a store configured, an object is refused with its own code.
        await #expect { try await FocalPipeline(configuration: FocalConfiguration(modelsPath: Checkout.models)).crop(.object(object), to: .size(width: 10, height: 10)) } throws: {
            ($0 as? StorageError)?.code == .storageNotConfigured
        }
    }
}

/// A thread-safe running total.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0
    func add(_ n: Int) { lock.withLock { total += n } }
    var value: Int { lock.withLock { total } }
}
