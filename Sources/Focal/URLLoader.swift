import AsyncHTTPClient
import FocalImaging
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Fetches image bytes over http(s) with AsyncHTTPClient: timeouts, a byte limit enforced while
/// the body streams, a redirect limit, and a format check on the bytes themselves.
struct URLLoader: Sendable {
    let settings: NetworkSettings
    let maxBytes: Int

    /// Fetches `url`, returning the body once it is known to start like an image.
    /// - Throws: `FetchError` naming the URL, or `CancellationError`.
    func fetch(_ url: URL) async throws -> Data {
        let address = url.absoluteString
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw FetchError(.fetchInvalidURL, url: address, "is not an http or https URL with a host")
        }
        let total = settings.totalTimeout
        return try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask { try await self.download(address) }
            group.addTask {
                try await Task.sleep(for: total)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let data = first else {
                throw FetchError(.fetchTimeout, url: address, "took longer than the total timeout of \(Self.seconds(total)); the server is too slow or the image too large")
            }
            return data
        }
    }

    private func download(_ address: String) async throws -> Data {
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "image/*")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .nanoseconds(Self.nanoseconds(settings.totalTimeout)))
        } catch {
            throw translate(error, address: address)
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            throw FetchError(
                .fetchStatus, url: address,
                "the server answered HTTP \(response.status.code) \(response.status.reasonPhrase) instead of an image",
                status: Int(response.status.code))
        }
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int.init), declared > maxBytes {
            throw tooLarge(address, "declares \(declared) bytes")
        }
        var body = Data()
        var checked = false
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maxBytes else {
                    throw tooLarge(address, "sent more than that")
                }
                body.append(contentsOf: chunk.readableBytesView)
                if !checked && body.count >= ImageSignature.prefixLength {
                    try checkSignature(body, address: address)
                    checked = true
                }
            }
        } catch let error as FetchError {
            throw error
        } catch {
            throw translate(error, address: address)
        }
        try Task.checkCancellation()
        if !checked { try checkSignature(body, address: address) }
        return body
    }

    private func checkSignature(_ body: Data, address: String) throws {
        guard ImageSignature.format(of: body) == nil else { return }
        if body.isEmpty { throw FetchError(.fetchNotAnImage, url: address, "the server sent an empty body, not an image") }
        throw FetchError(
            .fetchNotAnImage, url: address,
            "the body is \(ImageSignature.describe(body)), not an image in a format Focal reads (JPEG, PNG, WebP, GIF, TIFF, HEIF, AVIF, JPEG XL)")
    }

    private func tooLarge(_ address: String, _ what: String) -> FetchError {
        FetchError(.fetchTooLarge, url: address, "the body \(what), over the limit of \(maxBytes) bytes; raise the byte limit to accept it")
    }

    private func translate(_ error: any Error, address: String) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return FetchError(.fetchTimeout, url: address, "no connection within the connect timeout of \(Self.seconds(settings.connectTimeout))")
            case .readTimeout:
                return FetchError(.fetchTimeout, url: address, "the server sent nothing for \(Self.seconds(settings.readTimeout)) (read timeout)")
            case .deadlineExceeded:
                return FetchError(.fetchTimeout, url: address, "took longer than the total timeout of \(Self.seconds(settings.totalTimeout))")
            case .redirectLimitReached:
                return FetchError(.fetchRedirects, url: address, "redirected more than \(settings.maxRedirects) times; link to the image itself")
            case .redirectCycleDetected:
                return FetchError(.fetchRedirects, url: address, "redirects in a loop back to an address already visited")
            case .cancelled:
                return CancellationError()
            case .invalidURL, .emptyHost, .emptyScheme:
                return FetchError(.fetchInvalidURL, url: address, "is not a URL Focal can fetch: \(error)")
            default:
                return FetchError(.fetchConnection, url: address, "the connection failed: \(error)")
            }
        }
        return FetchError(.fetchConnection, url: address, "the connection failed: \(error)")
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.2f s", value)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : scaled + attoseconds / 1_000_000_000
    }

    /// The client for these settings: one per distinct setting for the life of the process, so
    /// that callers never have to shut one down (AsyncHTTPClient requires that before release).
    private var client: HTTPClient {
        let key = ClientKey(connect: settings.connectTimeout, read: settings.readTimeout, redirects: settings.maxRedirects)
        return Self.clients.withLock { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration(
                // With max 0 a redirect is an error of its own, not a 3xx "image".
                redirectConfiguration: .follow(max: max(0, settings.maxRedirects), allowCycles: false),
                timeout: .init(
                    connect: .nanoseconds(Self.nanoseconds(settings.connectTimeout)),
                    read: .nanoseconds(Self.nanoseconds(settings.readTimeout))),
                decompression: .disabled)
            configuration.httpVersion = .automatic
            // A refused connection is an answer: report it at once instead of retrying until the
            // connect timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    private struct ClientKey: Hashable {
        let connect: Duration
        let read: Duration
        let redirects: Int
    }

    private static let clients = Mutex<[ClientKey: HTTPClient]>([:])
}
