import AsyncHTTPClient
import FocalCore
import FocalImaging
package import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Fetches image bytes over http(s) with AsyncHTTPClient: timeouts, a byte limit enforced while
/// the body streams, redirects followed one by one, a format check on the bytes themselves, and
/// the SSRF guard: the allow-list of sources for the URL and every redirect target, and the
/// address policy before connecting (for an IP-literal host, its address; for a host name, every
/// address it resolves to, then a connection only to one of those) and again for the address of
/// every connection once it is made.
///
/// The body is held until its caller is done with it: the loader asks `reserve` for its bytes as
/// they arrive (all at once when the length is declared), and an error `reserve` throws (the
/// caller's memory budget is spent) ends the download, passed on unchanged.
package struct URLLoader: Sendable {
    let settings: NetworkSettings
    let maxBytes: Int
    /// Takes bytes on the caller's memory budget, or throws to refuse them.
    let reserve: @Sendable (Int) throws -> Void
    /// Resolves host names before connecting, when the address policy refuses some addresses;
    /// the system resolver unless a test gives another.
    var resolver: HostResolver = .system

    /// A loader.
    /// - Parameters:
    ///   - settings: Timeouts, redirects, the address policy and the allow-list.
    ///   - maxBytes: The most a body may hold.
    ///   - reserve: Takes a body's bytes on the caller's budget, or throws; default takes nothing.
    package init(settings: NetworkSettings, maxBytes: Int, reserve: @escaping @Sendable (Int) throws -> Void = { _ in }) {
        self.settings = settings
        self.maxBytes = maxBytes
        self.reserve = reserve
    }

    /// An error of `reserve`, carried past the translation of the client's errors.
    private struct Refused: Error {
        let error: any Error
    }

    /// Reserves `bytes` through `reserve`, its error marked to pass through unchanged.
    private func take(_ bytes: Int) throws {
        do { try reserve(bytes) } catch { throw Refused(error: error) }
    }

    /// Fetches `url`, returning the body once it is known to start like an image.
    /// - Throws: `FetchError` naming the URL, what `reserve` threw, or `CancellationError`.
    package func fetch(_ url: URL) async throws -> Data {
        let address = url.absoluteString
        try vet(url, asked: address)
        let total = settings.totalTimeout
        return try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask { try await self.download(url, asked: address) }
            group.addTask {
                try await Task.sleep(for: total)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let data = first else {
                throw FetchError(.fetchTimeout, url: address, "took longer than the total timeout of \(total.secondsText); the server is too slow or the image too large")
            }
            return data
        }
    }

    /// Requests `url` and follows its redirects, each target vetted before it is requested.
    private func download(_ url: URL, asked address: String) async throws -> Data {
        var current = url
        var visited: Set<String> = [url.absoluteString]
        var followed = 0
        while true {
            let (response, connection) = try await open(current, asked: address)
            guard let location = Self.redirectLocation(of: response) else {
                let body: Result<Data, any Error>
                do {
                    body = .success(try await read(response, asked: address))
                } catch {
                    body = .failure(error)
                }
                await connection.close()
                return try body.get()
            }
            await connection.close()
            guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                throw FetchError(.fetchInvalidURL, url: address, "redirects to \"\(location.oneLine)\", which is not a URL")
            }
            guard settings.maxRedirects > 0 else {
                throw FetchError(
                    .fetchRedirects, url: address,
                    "redirects to \(next.absoluteString), and following redirects is turned off; link to the image itself")
            }
            guard visited.insert(next.absoluteString).inserted else {
                throw FetchError(.fetchRedirects, url: address, "redirects in a loop back to \(next.absoluteString), an address already visited")
            }
            guard followed < settings.maxRedirects else {
                throw FetchError(.fetchRedirects, url: address, "redirected more than \(settings.maxRedirects) times; link to the image itself")
            }
            try vet(next, asked: address)
            followed += 1
            current = next
            // `response` went unread: AsyncHTTPClient stopped receiving its body.
        }
    }

    /// Checks a URL before it is requested: http(s) with a host and a valid port, on the
    /// allow-list of sources, and a host that is either an address the policy allows (IPv6 with
    /// a zone, and every IPv4 spelling, included) or a plain host name, which `connection(for:)`
    /// resolves and judges.
    /// - Parameters:
    ///   - url: The URL about to be requested: the one asked for, or a redirect target.
    ///   - address: The URL asked for, which every error names.
    func vet(_ url: URL, asked address: String) throws(FetchError) {
        let redirect = url.absoluteString == address ? nil : "redirects to \(url.absoluteString), "
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else {
            throw FetchError(.fetchInvalidURL, url: address, (redirect.map { $0 + "which " } ?? "") + "is not an http or https URL with a host")
        }
        guard SourceAllowList.effectivePort(of: url) != nil else {
            throw FetchError(.fetchInvalidURL, url: address, (redirect.map { $0 + "which " } ?? "") + "has a port outside 1...65535")
        }
        guard settings.allowedSources.allows(url) else {
            let what = redirect.map { $0 + "which is" } ?? "is"
            throw FetchError(.fetchNotAllowed, url: address, "\(what) not on the list of allowed sources (\(settings.allowedSources))")
        }
        if let literal = IPAddress(host: host) {
            if let refusal = settings.addressPolicy.refusal(for: literal) { throw refused(refusal, asked: address, redirect: redirect) }
        } else if !Self.isPlainHostName(host) {
            // `[::1%zone]`-like text that is no address is no host name either: never resolve it.
            throw FetchError(
                .fetchInvalidURL, url: address, (redirect.map { $0 + "which " } ?? "") + "has a host that is neither an IP address nor a host name")
        }
    }

    /// Whether `host`, not an address, can be a host name: no brackets, colon, percent sign,
    /// slash, backslash, at sign, space or control character.
    private static func isPlainHostName(_ host: String) -> Bool {
        host.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7f && !"[]:%/\\@".unicodeScalars.contains($0) }
    }

    private func refused(_ refusal: AddressRefusal, asked address: String, redirect: String?) -> FetchError {
        FetchError(
            .fetchAddressRefused, url: address,
            (redirect.map { $0 + "and " } ?? "") + "\(refusal); the address policy does not allow it")
    }

    /// Sends the request for `url` and waits for the response head; returns it with the
    /// connection it came on, which the caller closes once done with the response.
    private func open(_ url: URL, asked address: String) async throws -> (HTTPClientResponse, Connection) {
        let connection = try await connection(for: url, asked: address)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "image/*")
        do {
            let response = try await connection.client.execute(request, timeout: settings.totalTimeout.timeAmount)
            return (response, connection)
        } catch {
            await connection.close()
            throw translate(error, asked: address, at: url)
        }
    }

    /// The client to request `url` (already vetted) with.
    ///
    /// For a host name under a policy that refuses some addresses: the name is resolved here and
    /// every address it has is judged, and the request goes through a client of its own that
    /// connects to the first of them (AsyncHTTPClient's `dnsOverride`, which keeps the Host
    /// header, TLS SNI and certificate checks on the name). Otherwise the shared client for these
    /// settings: the host is an address `vet` judged, or every address is allowed. Either way
    /// every connection is judged again once made (`ConnectionRefusal`).
    /// - Throws: `FetchError` `fetch.address_refused` when the policy refuses any address of the
    ///   name (a name mixing allowed and refused addresses is a rebinding attempt), before any
    ///   connection; `fetch.connection` when the name does not resolve; `fetch.timeout` when
    ///   the resolver takes longer than the connect timeout; or `CancellationError`.
    private func connection(for url: URL, asked address: String) async throws -> Connection {
        let policy = settings.addressPolicy
        // The host as AsyncHTTPClient reads it from the request's URL, so the override matches.
        guard !policy.allowsEverything, let host = URL(string: url.absoluteString)?.host, IPAddress(host: host) == nil else {
            return Connection(client: client, owned: false)
        }
        let redirect = url.absoluteString == address ? "" : "redirects to \(url.absoluteString), and "
        let addresses: [IPAddress]
        do {
            addresses = try await resolver.addresses(of: host, within: settings.connectTimeout)
        } catch {
            switch error {
            case .cancelled:
                throw CancellationError()
            case .timedOut:
                throw FetchError(
                    .fetchTimeout, url: address,
                    redirect + "the host name \(host) did not resolve within the connect timeout of \(settings.connectTimeout.secondsText)")
            case let .failed(words):
                throw FetchError(.fetchConnection, url: address, redirect + "the host name \(host) does not resolve: \(words)")
            }
        }
        let refusals = addresses.compactMap(policy.refusal(for:))
        guard refusals.isEmpty, let chosen = addresses.first else {
            let shown = addresses.prefix(8).map(\.description).joined(separator: ", ") + (addresses.count > 8 ? " and \(addresses.count - 8) more" : "")
            let reasons = refusals.prefix(4).map(\.description).joined(separator: ", ")
            let partly = refusals.count < addresses.count ? ", nor any other address of a name it partly refuses" : ""
            throw FetchError(
                .fetchAddressRefused, url: address,
                redirect + "\(host) resolves to \(shown): \(reasons); the address policy does not allow it\(partly)")
        }
        var configuration = Self.configuration(for: clientKey)
        configuration.dnsOverride = [host: chosen.description]
        return Connection(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration), owned: true)
    }

    /// A client to send one request with, and whether it is that request's own, to be shut
    /// down once its response is done with (AsyncHTTPClient requires that before release).
    private struct Connection: Sendable {
        let client: HTTPClient
        let owned: Bool

        /// Shuts an owned client down, ending its connections; nothing for the shared one.
        func close() async {
            guard owned else { return }
            try? await client.shutdown()
        }
    }

    /// The Location of a redirect response (301, 302, 303, 307, 308); nil for any other.
    private static func redirectLocation(of response: HTTPClientResponse) -> String? {
        guard [301, 302, 303, 307, 308].contains(response.status.code) else { return nil }
        return response.headers.first(name: "Location")
    }

    /// Reads the body of a final response: a 2xx status, within the byte limit, that starts
    /// like an image.
    private func read(_ response: HTTPClientResponse, asked address: String) async throws -> Data {
        guard (200..<300).contains(Int(response.status.code)) else {
            throw FetchError(
                .fetchStatus, url: address,
                "the server answered HTTP \(response.status.code) \(response.status.reasonPhrase) instead of an image",
                status: Int(response.status.code))
        }
        let declared = response.headers.first(name: "Content-Length").flatMap(Int.init)
        if let declared, declared > maxBytes {
            throw tooLarge(address, "declares \(declared) bytes")
        }
        // The body is held until the caller is done: it is reserved on the caller's budget as it
        // arrives (all at once when its length is declared), so a flood of large downloads is
        // refused instead of buffered.
        var reserved = max(0, declared ?? 0)
        do {
            try take(reserved)
        } catch let refused as Refused {
            throw refused.error
        }
        var body = Data()
        // One allocation of the declared size: growing by doubling would hold up to twice the
        // body, and a copy of it while it grows, beyond what the budget counted.
        if reserved > 0 { body.reserveCapacity(reserved) }
        var checked = false
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maxBytes else {
                    throw tooLarge(address, "sent more than that")
                }
                if body.count + chunk.readableBytes > reserved {
                    // An undeclared length grows the buffer by doubling: count what it may hold.
                    let more = max(1 << 20, 2 * (body.count + chunk.readableBytes) - reserved)
                    try take(more)
                    reserved += more
                    body.reserveCapacity(min(maxBytes, 2 * (body.count + chunk.readableBytes)))
                }
                body.append(contentsOf: chunk.readableBytesView)
                if !checked && body.count >= ImageSignature.prefixLength {
                    try checkSignature(body, address: address)
                    checked = true
                }
            }
        } catch let error as FetchError {
            throw error
        } catch let refused as Refused {
            throw refused.error
        } catch {
            throw translate(error, asked: address, at: nil)
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

    /// The `FetchError` for an error of AsyncHTTPClient (or of the connection check).
    /// - Parameters:
    ///   - address: The URL asked for, which the error names.
    ///   - url: The URL being requested when it failed (a redirect target, perhaps).
    private func translate(_ error: any Error, asked address: String, at url: URL?) -> any Error {
        if error is CancellationError { return error }
        if let refusal = error as? ConnectionRefusal {
            let redirect = url.flatMap { $0.absoluteString == address ? nil : "redirects to \($0.absoluteString), " }
            guard let reason = refusal.refusal else {
                return FetchError(
                    .fetchAddressRefused, url: address,
                    (redirect.map { $0 + "and " } ?? "") + "the address connected (\(refusal.address)) is not an IP address the address policy can judge")
            }
            return refused(reason, asked: address, redirect: redirect)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return FetchError(.fetchTimeout, url: address, "no connection within the connect timeout of \(settings.connectTimeout.secondsText)")
            case .readTimeout:
                return FetchError(.fetchTimeout, url: address, "the server sent nothing for \(settings.readTimeout.secondsText) (read timeout)")
            case .deadlineExceeded:
                return FetchError(.fetchTimeout, url: address, "took longer than the total timeout of \(settings.totalTimeout.secondsText)")
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

    /// The client for these settings: one per distinct setting for the life of the process, so
    /// that callers never have to shut one down (AsyncHTTPClient requires that before release).
    private var client: HTTPClient {
        let key = clientKey
        return Self.clients.withLock { clients in
            if let client = clients[key] { return client }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.configuration(for: key))
            clients[key] = client
            return client
        }
    }

    private var clientKey: ClientKey {
        ClientKey(connect: settings.connectTimeout, read: settings.readTimeout, policy: settings.addressPolicy)
    }

    /// The configuration of a client for these settings.
    private static func configuration(for key: ClientKey) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            // Redirects are followed by `download`, which vets each target first.
            redirectConfiguration: .disallow,
            timeout: .init(
                connect: key.connect.timeAmount,
                read: key.read.timeAmount),
            decompression: .disabled)
        configuration.httpVersion = .automatic
        // A refused connection is an answer: report it at once instead of retrying until the
        // connect timeout. (A connection the address policy refuses is not retried either.)
        configuration.connectionPool.retryConnectionEstablishment = false
        let policy = key.policy
        if !policy.allowsEverything {
            // Every new connection, HTTP/1 or HTTP/2, is judged by the address it reached,
            // after DNS; it carries no request until it passes.
            configuration.http1_1ConnectionDebugInitializer = { channel in ConnectionRefusal.check(channel, against: policy) }
            configuration.http2ConnectionDebugInitializer = { channel in ConnectionRefusal.check(channel, against: policy) }
        }
        return configuration
    }

    private struct ClientKey: Hashable {
        let connect: Duration
        let read: Duration
        let policy: AddressPolicy
    }

    private static let clients = Mutex<[ClientKey: HTTPClient]>([:])
}
