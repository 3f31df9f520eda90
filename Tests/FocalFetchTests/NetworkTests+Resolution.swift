import Focal
@testable import FocalFetch
import Foundation
import FocalTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc

private let streamSocket = Int32(SOCK_STREAM.rawValue)
private let noSignal = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
import Darwin

private let streamSocket = SOCK_STREAM
private let noSignal: Int32 = 0
#endif

/// The SSRF guard at resolution time, on loopback only: a host name is resolved and every
/// address judged before any connection, so an open, a closed and a filtered internal port
/// answer alike (no port-scan oracle); the connection goes to an address that was judged, with
/// the name kept in the Host header; zones and IPv4-in-IPv6 spellings are addresses.
///
/// Names are `localhost` (in /etc/hosts) or answered by a test resolver: no test here sends a
/// DNS query or a packet off this machine.
extension NetworkTests {
    /// A loader with `policy` and `resolver` and generous timeouts unless told otherwise.
    static func loader(
        _ policy: AddressPolicy, resolver: HostResolver = .system, connect: Duration = .seconds(30)
    ) -> URLLoader {
        let network = NetworkSettings(connectTimeout: connect, readTimeout: .seconds(30), totalTimeout: .seconds(60), addressPolicy: policy)
        var loader = URLLoader(settings: network, maxBytes: 64 << 20)
        loader.resolver = resolver
        return loader
    }

    /// A resolver that knows only `localhost`, answering `addresses`, and records its calls and
    /// the threads they ran on; any other name fails without a query.
    static func fakeResolver(_ addresses: [IPAddress], calls: ResolverCalls? = nil) -> HostResolver {
        HostResolver { host in
            calls?.record(Thread.current.name ?? "unnamed")
            return host == "localhost" ? .success(addresses) : .failure(.failed("unknown to this test"))
        }
    }

    /// Fetches `url` with `loader`, which must fail with a `FetchError` of `code`; returns it.
    static func loaderRefusal(_ url: URL, _ code: ErrorCode, loader: URLLoader) async throws -> FetchError {
        try await promptRefusal(url, code) { _ = try await loader.fetch(url) }
    }

    // MARK: - No port-scan oracle

    @Test(
        "by default an open, a closed and a filtered loopback port answer alike: same code, messages and timing, no connection",
        arguments: ["localhost", "127.0.0.1", "[::ffff:127.0.0.1]"])
    func noPortOracle(host: String) async throws {
        let open = try CountingListener(serving: try LoopbackServer.fixture("astronaut.png"))
        let filtered = try CountingListener(serving: nil, backlog: 1)
        let closed = try RefusingPort()
        defer {
            open.stop()
            filtered.stop()
            closed.close()
        }
        filtered.prefill(8)
        // A connection attempt to the filtered port would take the whole connect timeout, 30 s,
        // three times `prompt`: the guard must answer before connecting.
        let network = NetworkSettings(connectTimeout: .seconds(30), readTimeout: .seconds(30), totalTimeout: .seconds(60))
        let pipeline = Self.pipeline(network: network, allowLoopback: false)
        var errors: [FetchError] = []
        for port in [open.port, closed.port, filtered.port] {
            let url = try Self.url("http://\(host):\(port)/image/astronaut.png")
            errors.append(try await Self.refusal(url, .fetchAddressRefused, pipeline: pipeline))
        }
        #expect(errors.count == 3)
        #expect(Set(errors.map(\.code)) == [.fetchAddressRefused])
        #expect(Set(errors.map(\.publicMessage)) == ["the source's address is not allowed"])
        #expect(Set(errors.map(\.message)).count == 1, "the log detail differs between ports: \(errors.map(\.message))")
        #expect(Set(errors.map(\.status)) == [nil])
        #expect(open.accepted == 0, "the open port was connected to")
        #expect(filtered.foreignConnections() == 0, "the filtered port was connected to")
    }

    // MARK: - Spellings

    @Test("every spelling of a loopback address, zoned or not, is refused before connecting", arguments: [
        "[::ffff:7f00:1%251]", "[::ffff:7f00:1%1]", "[::ffff:127.0.0.1]", "[::ffff:127.0.0.1%25eth0]", "[::1%25lo]",
        "0x7f.1", "0x7f000001", "0x7F.0x0.0x0.0x1", "017700000001", "0177.0.0.1", "127.000.000.001", "2130706433", "127.0.0.1.",
    ])
    func loopbackSpellings(host: String) async throws {
        let listener = try CountingListener(serving: try LoopbackServer.fixture("astronaut.png"))
        defer { listener.stop() }
        let calls = ResolverCalls()
        let url = try Self.url("http://\(host):\(listener.port)/astronaut.png")
        let loader = Self.loader(.publicOnly, resolver: Self.fakeResolver([IPAddress(127, 0, 0, 1)], calls: calls))
        let error = try await Self.loaderRefusal(url, .fetchAddressRefused, loader: loader)
        #expect(error.message.contains("the address policy does not allow it"), "\(error)")
        #expect(error.publicMessage == "the source's address is not allowed")
        #expect(listener.accepted == 0)
        #expect(calls.threads.isEmpty, "an address literal was resolved as a name")
    }

    @Test("a zoned address is refused even when its address is allowed", arguments: [
        "[::ffff:7f00:1%251]", "[::ffff:127.0.0.1%25eth0]", "[::1%25lo]",
    ])
    func zoneRefusedWhenAllowed(host: String) async throws {
        let listener = try CountingListener(serving: try LoopbackServer.fixture("astronaut.png"))
        defer { listener.stop() }
        let policy = AddressPolicy(allowedNetworks: [Self.loopback, try IPNetwork("::1")])
        let url = try Self.url("http://\(host):\(listener.port)/astronaut.png")
        let error = try await Self.loaderRefusal(url, .fetchAddressRefused, loader: Self.loader(policy))
        #expect(error.message.contains("loopback address"), "\(error)")
        #expect(listener.accepted == 0)
    }

    @Test("spellings that would leave loopback are refused by the check before connecting (judged without a network)", arguments: [
        "[::1.2.3.4]", "[::ffff:0:1.2.3.4]", "[fe80::1%25lo]", "[fe80::1%lo]", "[fe80::1%25%32%35]", "[fe80::1]",
        "[2606:4700::1%25eth0]", "[::10.0.0.1]",
    ])
    func refusedBeforeConnecting(host: String) throws {
        let url = try Self.url("http://\(host):8080/astronaut.png")
        let error = #expect(throws: FetchError.self) { try Self.loader(.publicOnly).vet(url, asked: url.absoluteString) }
        #expect(error?.code == .fetchAddressRefused, "\(String(describing: error))")
        #expect(error?.publicMessage == "the source's address is not allowed")
    }

    @Test("a host that is neither an address nor a name is .fetchInvalidURL, never resolved", arguments: [
        "[::1%25]", "[fe80::1%25]", "a%00b", "a%20b", "a%25b",
    ])
    func neitherAddressNorName(host: String) async throws {
        let calls = ResolverCalls()
        let url = try Self.url("http://\(host):8080/astronaut.png")
        let loader = Self.loader(.publicOnly, resolver: Self.fakeResolver([IPAddress(127, 0, 0, 1)], calls: calls))
        _ = try await Self.loaderRefusal(url, .fetchInvalidURL, loader: loader)
        #expect(calls.threads.isEmpty)
    }

    // MARK: - Resolving and connecting

    @Test("a name whose every address is allowed is fetched, with the name in the Host header")
    func allowedName() async throws {
        let bytes = try LoopbackServer.fixture("astronaut.png")
        let listener = try CountingListener(serving: bytes)
        defer { listener.stop() }
        let loader = Self.loader(AddressPolicy(allowedNetworks: [Self.loopback]))
        let data = try await loader.fetch(try Self.url("http://localhost:\(listener.port)/astronaut.png"))
        #expect(data == bytes)
        #expect(listener.accepted == 1)
        #expect(listener.hostHeaders == ["localhost:\(listener.port)"])
    }

    @Test("the connection goes to the address judged: a name the test resolver maps to 127.0.0.2 is fetched there")
    func connectsToVettedAddress() async throws {
        let bytes = try LoopbackServer.fixture("grace_hopper.jpg")
        // Only on 127.0.0.2; the system would resolve localhost to 127.0.0.1, which the policy refuses.
        let listener = try CountingListener(serving: bytes, host: "127.0.0.2")
        defer { listener.stop() }
        let calls = ResolverCalls()
        let policy = AddressPolicy(allowedNetworks: [IPNetwork(IPAddress(127, 0, 0, 2))])
        let loader = Self.loader(policy, resolver: Self.fakeResolver([IPAddress(127, 0, 0, 2)], calls: calls))
        let data = try await loader.fetch(try Self.url("http://localhost:\(listener.port)/grace_hopper.jpg"))
        #expect(data == bytes)
        #expect(listener.hostHeaders == ["localhost:\(listener.port)"])
        #expect(calls.threads.count == 1, "resolved once")

        // A redirect to the name is resolved and pinned the same way.
        try await withLoopbackServer(host: "127.0.0.2") { front in
            let target = try Self.url("http://localhost:\(listener.port)/grace_hopper.jpg")
            let followed = try await loader.fetch(front.redirect(to: target))
            #expect(followed == bytes)
            #expect(front.hits("/redirect-to") == 1)
        }
        #expect(listener.hostHeaders == ["localhost:\(listener.port)", "localhost:\(listener.port)"])
        #expect(calls.threads.count == 2)
    }

    @Test("a name with a refused address among allowed ones is refused before connecting, whatever the order")
    func mixedAddressesRefused() async throws {
        let listener = try CountingListener(serving: try LoopbackServer.fixture("astronaut.png"))
        defer { listener.stop() }
        let ipv6Loopback = try #require(IPAddress("::1"))
        let policy = AddressPolicy(allowedNetworks: [Self.loopback])
        for addresses in [[ipv6Loopback, IPAddress(127, 0, 0, 1)], [IPAddress(127, 0, 0, 1), ipv6Loopback]] {
            let loader = Self.loader(policy, resolver: Self.fakeResolver(addresses))
            let url = try Self.url("http://localhost:\(listener.port)/astronaut.png")
            let error = try await Self.loaderRefusal(url, .fetchAddressRefused, loader: loader)
            #expect(error.message.contains("localhost resolves to"), "\(error)")
            #expect(error.message.contains("::1 is a loopback address"), "\(error)")
            #expect(!error.message.contains("127.0.0.1 is a loopback"), "127.0.0.1 is allowed: \(error)")
            #expect(error.publicMessage == "the source's address is not allowed")
        }
        #expect(listener.accepted == 0)
    }

    @Test("a resolver slower than the connect timeout gives .fetchTimeout at that timeout; a name that does not resolve, .fetchConnection")
    func resolutionFailures() async throws {
        let slow = HostResolver { _ in
            Thread.sleep(forTimeInterval: 4)
            return .success([IPAddress(127, 0, 0, 1)])
        }
        let url = try Self.url("http://localhost:9/astronaut.png")
        let start = ContinuousClock.now
        let timeout = try await Self.loaderRefusal(url, .fetchTimeout, loader: Self.loader(.publicOnly, resolver: slow, connect: .milliseconds(300)))
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(3), "took \(elapsed)")
        #expect(timeout.message.contains("did not resolve within the connect timeout"), "\(timeout)")

        let failing = HostResolver { _ in .failure(.failed("Name or service not known")) }
        let error = try await Self.loaderRefusal(url, .fetchConnection, loader: Self.loader(.publicOnly, resolver: failing))
        #expect(error.message.contains("the host name localhost does not resolve: Name or service not known"), "\(error)")
    }

    @Test("slow lookups run on the resolver's own threads: Swift's cooperative pool stays free meanwhile")
    func slowLookupsLeaveThePoolFree() async throws {
        final class Finished: Sendable { let count = Mutex(0) }
        let finished = Finished()
        let slow = HostResolver { _ in
            Thread.sleep(forTimeInterval: 5)
            finished.count.withLock { $0 += 1 }
            return .success([IPAddress(127, 0, 0, 1)])
        }
        // More lookups than the pool has threads (as wide as the cores), each blocking for 5 s.
        let lookups = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 { group.addTask { (try? await slow.addresses(of: "localhost", within: .seconds(30))) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        // Hops through the pool, each needing a free cooperative thread: had the lookups taken the
        // pool's threads, these would wait until one of them ended.
        for _ in 0..<5 { await Task.detached { await Task.yield() }.value }
        #expect(finished.count.withLock { $0 } == 0, "the hops waited for a lookup to end: the pool was blocked")
        #expect(await lookups.value == 8)
    }

    @Test("the system resolver reads localhost from the hosts file")
    func systemResolver() async throws {
        let addresses = try await HostResolver.system.addresses(of: "localhost", within: .seconds(10))
        #expect(addresses.contains(IPAddress(127, 0, 0, 1)), "\(addresses)")
        #expect(addresses.allSatisfy { $0.ownCategory == .loopback }, "\(addresses)")
        #expect(Set(addresses).count == addresses.count, "each address once")
    }
}

/// The calls a test resolver received: the name of the thread each ran on.
final class ResolverCalls: Sendable {
    private let names = Mutex<[String]>([])
    func record(_ thread: String) { names.withLock { $0.append(thread) } }
    var threads: [String] { names.withLock { $0 } }
}

/// A TCP listener on a loopback address, made of plain sockets, that records what reaches it:
/// serving, it accepts each connection, records the request head and answers `200` with a
/// body; not serving, it never accepts (with a backlog of 1 and `prefill`, a "filtered" port
/// whose queue is full), and `foreignConnections` counts what queued besides its own.
final class CountingListener: Sendable {
    /// The address it listens on.
    let host: String
    let port: Int
    private let descriptor: Int32
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)
    private let serving: Bool

    private struct State {
        var accepted = 0
        var heads: [String] = []
        var stopped = false
        var prefilled: [Int32] = []
        var prefilledPorts: Set<Int> = []
    }

    /// Connections accepted so far (serving).
    var accepted: Int { state.withLock { $0.accepted } }

    /// The Host header of each request received, in order.
    var hostHeaders: [String] {
        state.withLock { state in
            state.heads.map { head in
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("host:") }
                    .map { String($0.dropFirst(5).trimmingCharacters(in: .whitespaces)) } ?? "(none)"
            }
        }
    }

    /// Listens on `host` (an IPv4 loopback address), on a port the kernel picks.
    /// - Parameters:
    ///   - body: The body to answer every request with; nil never accepts.
    ///   - backlog: The listen backlog.
    init(serving body: Data?, host: String = "127.0.0.1", backlog: Int32 = 16) throws {
        let descriptor = socket(AF_INET, streamSocket, 0)
        guard descriptor >= 0 else { throw LoopbackError("socket() failed: errno \(errno)") }
        var address = Self.socketAddress(host, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound, listen(descriptor, backlog) == 0 else {
            _ = close(descriptor)
            throw LoopbackError("bind() or listen() on \(host) failed: errno \(errno)")
        }
        self.descriptor = descriptor
        self.host = host
        port = Int(UInt16(bigEndian: address.sin_port))
        serving = body != nil
        if let body {
            let thread = Thread { [self] in serve(body) }
            thread.start()
        }
    }

    /// Opens `count` connections to the listener that it never accepts, to fill its queue.
    func prefill(_ count: Int) {
        for _ in 0..<count {
            let client = socket(AF_INET, streamSocket, 0)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            var address = Self.socketAddress(host, port: port)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var local = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &local) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &length) }
            }
            let localPort = Int(UInt16(bigEndian: local.sin_port))
            state.withLock {
                $0.prefilled.append(client)
                $0.prefilledPorts.insert(localPort)
            }
        }
    }

    /// Accepts whatever is queued (not serving) and counts connections that `prefill` did not open.
    func foreignConnections() -> Int {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var foreign = 0
        while true {
            var peer = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let client = withUnsafeMutablePointer(to: &peer) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(descriptor, $0, &length) }
            }
            guard client >= 0 else { break }
            let peerPort = Int(UInt16(bigEndian: peer.sin_port))
            if !state.withLock({ $0.prefilledPorts.contains(peerPort) }) { foreign += 1 }
            _ = close(client)
        }
        return foreign
    }

    /// Stops serving, closes every socket, and waits for the serving thread to end.
    func stop() {
        let prefilled = state.withLock { state in
            state.stopped = true
            defer { state.prefilled = [] }
            return state.prefilled
        }
        for client in prefilled { _ = close(client) }
        if serving { finished.wait() }
        _ = close(descriptor)
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func serve(_ body: Data) {
        defer { finished.signal() }
        while !isStopped {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { continue }
            state.withLock { $0.accepted += 1 }
            let head = Self.readHead(client)
            state.withLock { $0.heads.append(head) }
            let response = Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
            Self.reply(response, to: client)
            _ = close(client)
        }
    }

    /// The request head, read until its blank line (or 16 KiB, or 5 s of silence).
    private static func readHead(_ client: Int32) -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 16 << 10 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[0..<count]
            if String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    private static func reply(_ data: Data, to client: Int32) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let sent = send(client, base + offset, raw.count - offset, noSignal)
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    private static func socketAddress(_ host: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(clamping: port).bigEndian
        _ = inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }
}
