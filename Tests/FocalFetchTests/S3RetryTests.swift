import FocalCore
@testable import FocalFetch
import FocalTestSupport
import Foundation
import Testing

/// Retries and deadlines against a loopback server that misbehaves (path-style addressing maps
/// `s3://status/503` to its `/status/503` route): a 5xx is tried `attempts` times with backoff, a
/// 4xx once, a stalled answer ends at the operation's deadline.
@Suite struct S3RetryTests {
    func client(_ server: LoopbackServer, attempts: Int = 3, total: Duration = .seconds(5)) -> S3Client {
        S3Client(settings: ObjectStorageSettings(
            endpoint: server.base, credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b"), pathStyle: true,
            readTimeout: .seconds(1), totalTimeout: total, attempts: attempts))
    }

    @Test func aServerErrorIsRetriedAndThenUnavailable() async throws {
        try await withLoopbackServer { server in
            let address = try #require(ObjectAddress(bucket: "status", key: "503"))
            // A deadline far past three quick tries: this test counts tries, the next ones time.
            await #expect { try await client(server, total: .seconds(60)).get(address, maxBytes: 1 << 20) } throws: {
                ($0 as? StorageError)?.code == .storageUnavailable && ($0 as? StorageError)?.status == 503
            }
            #expect(server.hits("/status/503") == 3, "three tries")
        }
    }

    @Test func aRefusalIsNotRetried() async throws {
        try await withLoopbackServer { server in
            for code in ["403", "400"] {
                let address = try #require(ObjectAddress(bucket: "status", key: code))
                await #expect { try await client(server).get(address, maxBytes: 1 << 20) } throws: { ($0 as? StorageError)?.code == .storageRefused }
                #expect(server.hits("/status/\(code)") == 1, "\(code): one try")
            }
        }
    }

    /// A store that sends no answer's head within the read timeout is not asked again: the read
    /// ends after one read timeout with `storage.unavailable`, well before the operation's
    /// deadline (a stalled store used to hold a request until the request's own timeout).
    @Test func aStalledStoreEndsAtTheReadTimeout() async throws {
        try await withLoopbackServer { server in
            let address = try #require(ObjectAddress(bucket: "slow", key: "20/astronaut.png"))
            let before = ContinuousClock.now
            await #expect { try await client(server, total: .seconds(30)).get(address, maxBytes: 1 << 20) } throws: {
                let error = $0 as? StorageError
                return error?.code == .storageUnavailable && error?.message.contains("read timeout") == true
            }
            #expect(ContinuousClock.now - before < .seconds(3), "one read timeout (1 s), not the 30 s deadline")
            #expect(server.hits("/slow/20/astronaut.png") == 1, "not tried again")
        }
    }

    /// A redirect (a wrong endpoint or region) is refused and said to be one, not taken for
    /// refused credentials.
    @Test func aRedirectIsNamed() async throws {
        try await withLoopbackServer { server in
            let address = try #require(ObjectAddress(bucket: "status", key: "307"))
            await #expect { try await client(server).get(address, maxBytes: 1 << 20) } throws: {
                let error = $0 as? StorageError
                return error?.code == .storageRefused && error?.message.contains("redirect") == true && error?.publicMessage.contains("credentials") == true
            }
        }
    }

    @Test func aStalledAnswerEndsAtTheDeadline() async throws {
        try await withLoopbackServer { server in
            let address = try #require(ObjectAddress(bucket: "slow", key: "20/astronaut.png"))
            let before = ContinuousClock.now
            await #expect { try await client(server, total: .seconds(2)).get(address, maxBytes: 1 << 20) } throws: {
                ($0 as? StorageError)?.code == .storageUnavailable
            }
            #expect(ContinuousClock.now - before < .seconds(4))
        }
    }
}
