import AsyncHTTPClient
import Crypto
import FocalCore
package import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Reads, writes and lists objects in an S3-compatible store: Signature V4 requests over one
/// pooled AsyncHTTPClient per settings (connections reused), every operation within the
/// settings' deadlines, retried with jittered backoff where that is safe, and every failure a
/// `StorageError` whose message names the object and never a credential.
package struct S3Client: Sendable {
    /// The store and how to reach it.
    package let settings: ObjectStorageSettings

    /// A client for `settings`.
    package init(settings: ObjectStorageSettings) {
        self.settings = settings
    }

    /// An object's bytes and its entity tag.
    package struct Object: Sendable {
        /// The body.
        package let data: Data
        /// The ETag, quotes included; nil when the store sent none.
        package let etag: String?
    }

    /// What `HEAD` says of an object.
    package struct Head: Sendable, Hashable {
        /// Its length in bytes.
        package let size: Int
        /// The ETag, quotes included.
        package let etag: String?
    }

    /// One object of a listing.
    package struct Listed: Sendable, Hashable {
        /// The key.
        package let key: String
        /// Its length in bytes.
        package let size: Int
        /// The ETag, quotes included.
        package let etag: String?
    }

    /// One page of a listing, and the token of the next (nil on the last page).
    package struct Page: Sendable {
        package let objects: [Listed]
        package let next: String?
    }

    // MARK: - Operations

    /// The object at `address`, read only when its `Content-Length` is within `maxBytes`; each
    /// chunk is reserved through `reserve` (the caller's memory budget) before it is kept.
    /// - Throws: `StorageError`, what `reserve` throws, or `CancellationError`.
    package func get(_ address: ObjectAddress, maxBytes: Int, reserve: @escaping @Sendable (Int) throws -> Void = { _ in }) async throws -> Object {
        // Retries reuse what earlier tries reserved: only the bytes beyond the most held so far are taken.
        let reservation = Reservation(reserve)
        return try await operation(address.description) { deadline in
            let response = try await send("GET", bucket: address.bucket, key: address.key, deadline: deadline)
            try await expectSuccess(response, address: address.description)
            let declared = response.headers.first(name: "Content-Length").flatMap(Int.init)
            if let declared, declared > maxBytes {
                throw StorageError(
                    .storageTooLarge, address: address.description,
                    "the object holds \(declared) bytes, over the limit of \(maxBytes); raise the byte limit to read it", status: 200)
            }
            let data = try await body(
                response, address: address.description, maxBytes: maxBytes, declared: declared, deadline: deadline, reserve: reservation.take)
            return Object(data: data, etag: response.headers.first(name: "ETag"))
        }
    }

    /// The size and ETag of the object at `address`, without its body.
    package func head(_ address: ObjectAddress) async throws -> Head {
        try await operation(address.description) { deadline in
            let response = try await send("HEAD", bucket: address.bucket, key: address.key, deadline: deadline)
            try await expectSuccess(response, address: address.description)
            let size = response.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
            return Head(size: size, etag: response.headers.first(name: "ETag"))
        }
    }

    /// Stores `data` at `address`. The payload's SHA-256 is signed (`x-amz-content-sha256`), so
    /// the store refuses bytes that changed on the way.
    package func put(_ data: Data, at address: ObjectAddress, contentType: String = "application/octet-stream") async throws {
        let hash = S3Signer.hex(SHA256.hash(data: data))
        try await operation(address.description) { deadline in
            let response = try await send(
                "PUT", bucket: address.bucket, key: address.key, headers: [("content-type", contentType)], body: data, payloadHash: hash,
                deadline: deadline)
            try await expectSuccess(response, address: address.description)
            _ = try? await response.body.collect(upTo: 64 << 10)
        }
    }

    /// One page (at most `limit`, up to 1000) of the objects under `prefix` in `bucket`
    /// (ListObjectsV2), from `token` (a previous page's `next`).
    package func list(bucket: String, prefix: String, token: String? = nil, limit: Int = 1000) async throws -> Page {
        var query: [(String, String)] = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(min(1000, max(1, limit)))), ("encoding-type", "url")]
        if let token { query.append(("continuation-token", token)) }
        let address = "s3://\(bucket)/\(prefix)"
        return try await operation(address) { deadline in
            let response = try await send("GET", bucket: bucket, key: nil, query: query, deadline: deadline)
            try await expectSuccess(response, address: address)
            let data = try await body(response, address: address, maxBytes: 16 << 20, declared: nil, deadline: deadline, reserve: { _ in })
            return try S3Listing.page(String(decoding: data, as: UTF8.self), address: address)
        }
    }

    // MARK: - Requests

    /// Sends one signed request and waits for the answer's head.
    private func send(
        _ method: String, bucket: String, key: String?, query: [(String, String)] = [], headers extra: [(String, String)] = [],
        body: Data? = nil, payloadHash: String = S3Signer.emptyPayloadHash, deadline: ContinuousClock.Instant
    ) async throws -> HTTPClientResponse {
        let target = self.target(bucket: bucket, key: key)
        let queryText = S3Signer.canonicalQuery(query)
        var request = HTTPClientRequest(url: target.base + target.path + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Host", value: target.host)
        request.headers.add(name: "User-Agent", value: "Focal/1")
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let credentials = settings.credentials {
            let signer = S3Signer(credentials: credentials, region: settings.region)
            for (name, value) in signer.headers(
                method: method, host: target.host, path: target.path, query: query, headers: extra, payloadHash: payloadHash, date: Date())
            {
                request.headers.add(name: name, value: value)
            }
        } else {
            request.headers.add(name: "x-amz-content-sha256", value: payloadHash)
        }
        if let body {
            request.headers.add(name: "Content-Length", value: String(body.count))
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw Attempt.timedOut }
        do {
            return try await Self.client(for: settings).execute(request, timeout: left.timeAmount)
        } catch let error as HTTPClientError where error == .readTimeout {
            // The store took the request and sent nothing for the read timeout (10 s by default).
            throw Attempt.stalled
        } catch {
            throw Attempt.failed(error)
        }
    }

    /// The URL parts of a request: base (`scheme://host[:port]`), path (encoded) and `Host`.
    func target(bucket: String, key: String?) -> (base: String, path: String, host: String) {
        let endpoint = settings.endpoint ?? URL(string: "https://s3.\(settings.region).amazonaws.com")
        let scheme = endpoint?.scheme?.lowercased() ?? "https"
        // An IPv6 address in brackets, as a URL and a Host header write it.
        let host = endpoint?.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 } ?? "s3.amazonaws.com"
        let port = endpoint?.port.flatMap { ($0 == 80 && scheme == "http") || ($0 == 443 && scheme == "https") ? nil : $0 }
        let basePath = endpoint.map { $0.path.hasSuffix("/") ? String($0.path.dropLast()) : $0.path } ?? ""
        let keyPath = key.map { "/" + S3Signer.encodePath($0) } ?? "/"
        let hostName = settings.usesPathStyle(for: bucket) ? host : "\(bucket).\(host)"
        let hostHeader = hostName + (port.map { ":\($0)" } ?? "")
        let path = settings.usesPathStyle(for: bucket) ? basePath + "/" + bucket + (key.map { "/" + S3Signer.encodePath($0) } ?? "") : basePath + keyPath
        return ("\(scheme)://\(hostHeader)", path.isEmpty ? "/" : path, hostHeader)
    }

    /// Throws the `StorageError` a non-2xx answer means (its body read, bounded, for the store's code).
    private func expectSuccess(_ response: HTTPClientResponse, address: String) async throws {
        let status = Int(response.status.code)
        guard !(200..<300).contains(status) else { return }
        let text = (try? await response.body.collect(upTo: 64 << 10)).map { String(buffer: $0) } ?? ""
        let code = S3Listing.value(of: "Code", in: text) ?? ""
        let words = S3Listing.value(of: "Message", in: text) ?? ""
        let cause = "HTTP \(status) \(code) \(words)".trimmingCharacters(in: .whitespaces)
        switch status {
        case 404 where code != "NoSuchBucket":
            throw StorageError(.storageNotFound, address: address, "no object at this key (HTTP 404)", status: status, cause: cause)
        case 404:
            throw StorageError(.storageRefused, address: address, "the bucket does not exist (NoSuchBucket); check the bucket name", status: status, cause: cause)
        case 401, 403, 400:
            throw StorageError(
                .storageRefused, address: address,
                "the store refused the request (\(code.isEmpty ? "HTTP \(status)" : code)); check the access key, the secret, the region and the bucket's permissions",
                status: status, cause: cause)
        case 408, 429, 500...599:
            throw Attempt.retryable(StorageError(
                .storageUnavailable, address: address, "the store answered HTTP \(status)\(code.isEmpty ? "" : " (\(code))"); try again shortly",
                status: status, cause: cause))
        case 300...399:
            throw StorageError(
                .storageRefused, address: address,
                "the store answered HTTP \(status), a redirect (Focal follows none): check the endpoint and the region; a bucket in another region answers so",
                status: status, cause: cause)
        default:
            throw StorageError(.storageRefused, address: address, "the store answered HTTP \(status)\(code.isEmpty ? "" : " (\(code))")", status: status, cause: cause)
        }
    }

    /// Reads a body within `maxBytes` and the operation's `deadline` (AsyncHTTPClient's own
    /// deadline ends at the answer's head; between chunks its read timeout applies), reserving its
    /// bytes as they arrive (all at once when declared). `reserve` takes a running total.
    private func body(
        _ response: HTTPClientResponse, address: String, maxBytes: Int, declared: Int?, deadline: ContinuousClock.Instant,
        reserve: @Sendable (Int) throws -> Void
    ) async throws -> Data {
        var reserved = max(0, declared ?? 0)
        do { try reserve(reserved) } catch { throw Attempt.final(error) }
        var data = Data()
        if reserved > 0 { data.reserveCapacity(reserved) }
        do {
            for try await chunk in response.body {
                guard data.count + chunk.readableBytes <= maxBytes else {
                    throw StorageError(.storageTooLarge, address: address, "the object sent more than the limit of \(maxBytes) bytes; raise the byte limit to read it")
                }
                guard ContinuousClock.now < deadline else { throw Attempt.timedOut }
                if data.count + chunk.readableBytes > reserved {
                    reserved += max(1 << 20, data.count + chunk.readableBytes - reserved)
                    do { try reserve(reserved) } catch { throw Attempt.final(error) }
                }
                data.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as StorageError {
            throw error
        } catch let attempt as Attempt {
            throw attempt
        } catch {
            throw Attempt.failed(error)
        }
        if let declared, data.count != declared {
            throw Attempt.retryable(StorageError(.storageUnavailable, address: address, "the store sent \(data.count) of \(declared) bytes; try again shortly"))
        }
        return data
    }

    // MARK: - Retries and deadlines

    /// The bytes one read holds on its caller's budget, across its tries: each try takes only
    /// what goes beyond the most an earlier one held.
    final class Reservation: @unchecked Sendable {
        private let reserve: @Sendable (Int) throws -> Void
        private let lock = NSLock()
        private var held = 0

        init(_ reserve: @escaping @Sendable (Int) throws -> Void) { self.reserve = reserve }

        /// Makes `total` bytes held, reserving the difference when it is more than held now.
        @Sendable func take(_ total: Int) throws {
            try lock.withLock {
                guard total > held else { return }
                try reserve(total - held)
                held = total
            }
        }
    }

    /// How one try ended, when not with an answer or a final `StorageError`.
    enum Attempt: Error {
        /// The operation's time is up.
        case timedOut
        /// The store sent nothing for the read timeout: a store that stalls is not asked again
        /// (each try would wait as long).
        case stalled
        /// A transport error (connection refused or reset, a timeout): worth another try.
        case failed(any Error)
        /// An answer worth another try (5xx, 429).
        case retryable(StorageError)
        /// An error to pass on unchanged (the caller's budget refused the bytes).
        case final(any Error)
    }

    /// Runs `body` until it succeeds, fails for good, or `attempts` and `totalTimeout` are spent;
    /// waits between tries for a random time up to 100 ms · 2^try (at most 2 s).
    private func operation<T: Sendable>(_ address: String, _ body: (ContinuousClock.Instant) async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + settings.totalTimeout
        var last: StorageError = StorageError(.storageUnavailable, address: address, "the store could not be reached")
        for attempt in 0..<settings.attempts {
            try Task.checkCancellation()
            do {
                return try await body(deadline)
            } catch let error as Attempt {
                switch error {
                case .timedOut:
                    throw timedOut(address)
                case .stalled:
                    throw StorageError(
                        .storageUnavailable, address: address,
                        "the store sent nothing for \(settings.readTimeout.secondsText) (the read timeout); try again shortly")
                case let .final(inner):
                    throw inner
                case let .retryable(storage):
                    last = storage
                case let .failed(inner):
                    if inner is CancellationError { throw inner }
                    if let client = inner as? HTTPClientError, client == .cancelled { throw CancellationError() }
                    last = transportError(inner, address: address)
                    // A URL the client cannot send is the configuration's fault: no retry mends it.
                    if let client = inner as? HTTPClientError, [.invalidURL, .emptyHost, .emptyScheme].contains(client) {
                        last.message = "the endpoint \(settings.endpoint?.host ?? "") makes no URL the client can send; check --s3-endpoint"
                        throw last
                    }
                }
            }
            guard attempt + 1 < settings.attempts else { break }
            let cap = min(2.0, 0.1 * Double(1 << min(attempt + 1, 8)))
            let pause = Duration.milliseconds(Int(rounding: Double.random(in: 0...cap) * 1000, within: 0...2000))
            guard ContinuousClock.now + pause < deadline else { break }
            try await Task.sleep(for: pause)
        }
        throw last
    }

    private func timedOut(_ address: String) -> StorageError {
        StorageError(.storageUnavailable, address: address, "the store did not answer within \(settings.totalTimeout.secondsText); try again shortly")
    }

    /// The `StorageError` of a transport failure.
    private func transportError(_ error: any Error, address: String) -> StorageError {
        let cause = "\(error)"
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return StorageError(.storageUnavailable, address: address, "no connection to the store within \(settings.connectTimeout.secondsText)", cause: cause)
            case .readTimeout:
                return StorageError(.storageUnavailable, address: address, "the store sent nothing for \(settings.readTimeout.secondsText)", cause: cause)
            case .deadlineExceeded:
                return StorageError(.storageUnavailable, address: address, "the store did not answer within \(settings.totalTimeout.secondsText)", cause: cause)
            default:
                break
            }
        }
        return StorageError(.storageUnavailable, address: address, "the store could not be reached; try again shortly", cause: cause)
    }

    // MARK: - Clients

    /// Connections opened to stores since the process started (each reused while idle).
    package static var connectionsOpened: Int { opened.load(ordering: .relaxed) }
    private static let opened = Atomic<Int>(0)

    /// The pooled client for `settings`: one per store and timeouts, for the life of the process.
    private static func client(for settings: ObjectStorageSettings) -> HTTPClient {
        let key = ClientKey(connect: settings.connectTimeout, read: settings.readTimeout)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: key.connect.timeAmount, read: key.read.timeAmount),
                decompression: .disabled)
            configuration.httpVersion = .http1Only
            configuration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.http1_1ConnectionDebugInitializer = { channel in
                opened.add(1, ordering: .relaxed)
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    private struct ClientKey: Hashable {
        let connect: Duration
        let read: Duration
    }

    private static let clients = Mutex<[ClientKey: HTTPClient]>([:])

}
