package import Foundation
import Hummingbird
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP/1.1 server (Hummingbird) on 127.0.0.1 (or another loopback address), on a port
/// the kernel picks, serving the fixture photos and the ways a server can misbehave. Use it
/// through `withLoopbackServer`, which stops it when the body returns or throws.
///
/// Routes (`NAME` is a file in `Fixtures/`, read from disk at each request):
/// - `/image/NAME`: the file, with its Content-Type and Content-Length.
/// - `/chunked/NAME`: the file, streamed in 4 KiB chunks without a Content-Length.
/// - `/as-text/NAME`: the file, labelled `text/plain`.
/// - `/truncated/NAME`: the first half of the file.
/// - `/slow/SECONDS/NAME`: the file, after sleeping that long before the response head.
/// - `/hop/N/NAME`: N redirects (302, relative Location) down to `/image/NAME`.
/// - `/loop-a` ⇄ `/loop-b`: redirects to each other forever.
/// - `/status/CODE`: that status with a small HTML body.
/// - `/html-as-jpeg`: an HTML page labelled `image/jpeg`.
/// - `/endless-jpeg`, `/endless-html`: a JPEG's first bytes (or an HTML head), then 64 KiB
///   chunks, at most one a millisecond, until the client goes away (or 1 GiB); no
///   Content-Length. `endlessStreamsEnded` counts streams whose writer stopped.
/// - `/declared-huge`: a Content-Length of 1 GiB, a JPEG's first bytes, then nothing.
/// - `/redirect-to?url=URL`: a 302 to `URL`, whatever it is (another server, another host).
package final class LoopbackServer: Sendable {
    /// `http://HOST:PORT`, HOST being the address it listens on.
    package let base: URL
    /// The port it listens on.
    package var port: Int { base.port ?? 0 }
    private let log: RequestLog
    private let task: Task<Void, any Error>

    /// The URL of `/redirect-to`, redirecting to `target`.
    package func redirect(to target: URL) -> URL {
        let query = target.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return url("/redirect-to?url=" + query)
    }

    /// The URL of `path` (which starts with "/") on this server.
    package func url(_ path: String) -> URL { URL(string: base.absoluteString + path)! }

    /// Requests received for `path` so far.
    package func hits(_ path: String) -> Int { log.hits(path) }

    /// Endless streams whose writer has stopped (the client closed the connection).
    package var endlessStreamsEnded: Int { log.endlessEnded }

    /// Bytes the endless streams have handed to Hummingbird so far, all streams together (its
    /// writer buffers without waiting for the client, so this is not what the client read).
    package var endlessBytesSent: Int { log.endlessBytes }

    private init(base: URL, log: RequestLog, task: Task<Void, any Error>) {
        self.base = base
        self.log = log
        self.task = task
    }

    /// Starts a server and returns once it listens.
    /// - Parameter host: The address to listen on; default 127.0.0.1. Linux answers on all of
    ///   127.0.0.0/8, so 127.0.0.2 gives a second loopback host.
    package static func start(host: String = "127.0.0.1") async throws -> LoopbackServer {
        let log = RequestLog()
        let router = Router()
        router.add(middleware: CountingMiddleware(log: log))
        addRoutes(to: router, log: log)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "focal-tests.loopback")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        // The server runs on its own threads, so that it answers on time even while other tests
        // keep Swift's cooperative pool busy (it is two threads wide on a two-core machine).
        let task = Task(executorPreference: ServerExecutor.shared) {
            defer { continuation.finish() }
            try await app.run()
        }
        var port = 0
        for await bound in ports {
            port = bound
            break
        }
        guard port > 0 else {
            task.cancel()
            _ = await task.result
            throw LoopbackError("the loopback server did not start")
        }
        guard let base = URL(string: "http://\(host):\(port)") else {
            task.cancel()
            _ = await task.result
            throw LoopbackError("no URL for host \(host)")
        }
        return LoopbackServer(base: base, log: log, task: task)
    }

    /// Stops the server: stops listening and cancels the requests in progress, then waits for it.
    package func stop() async {
        task.cancel()
        _ = await task.result
    }

    // MARK: - Routes

    private static func addRoutes(to router: Router<BasicRequestContext>, log: RequestLog) {
        router.get("/image/:name") { _, context in
            let name = try context.parameters.require("name")
            return try imageResponse(name, body: ResponseBody(byteBuffer: ByteBuffer(bytes: fixture(name))))
        }
        router.get("/chunked/:name") { _, context in
            let name = try context.parameters.require("name")
            let bytes = try fixture(name)
            return try imageResponse(
                name,
                body: ResponseBody { writer in
                    var offset = 0
                    while offset < bytes.count {
                        let end = min(offset + 4096, bytes.count)
                        try await writer.write(ByteBuffer(bytes: bytes[offset..<end]))
                        offset = end
                    }
                    try await writer.finish(nil)
                })
        }
        router.get("/as-text/:name") { _, context in
            let bytes = try fixture(try context.parameters.require("name"))
            return Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("/truncated/:name") { _, context in
            let name = try context.parameters.require("name")
            let bytes = try fixture(name)
            return try imageResponse(name, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes.prefix(bytes.count / 2))))
        }
        router.get("/slow/:seconds/:name") { _, context in
            let seconds = try context.parameters.require("seconds", as: Double.self)
            let name = try context.parameters.require("name")
            try await Task.sleep(for: .seconds(seconds))
            return try imageResponse(name, body: ResponseBody(byteBuffer: ByteBuffer(bytes: fixture(name))))
        }
        router.get("/hop/:count/:name") { _, context in
            let count = try context.parameters.require("count", as: Int.self)
            let name = try context.parameters.require("name")
            let next = count > 1 ? "/hop/\(count - 1)/\(name)" : "/image/\(name)"
            return Response(status: .found, headers: [.location: next])
        }
        router.get("/redirect-to") { request, _ in
            guard let target = request.uri.queryParameters["url"] else { return Response(status: .badRequest) }
            return Response(status: .found, headers: [.location: String(target)])
        }
        router.get("/loop-a") { _, _ in Response(status: .found, headers: [.location: "/loop-b"]) }
        router.get("/loop-b") { _, _ in Response(status: .found, headers: [.location: "/loop-a"]) }
        router.get("/status/:code") { _, context in
            let code = try context.parameters.require("code", as: Int.self)
            return Response(
                status: HTTPResponse.Status(code: code), headers: [.contentType: "text/html"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "<html><body>status \(code)</body></html>")))
        }
        router.get("/html-as-jpeg") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "image/jpeg"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "<!DOCTYPE html><html><head><title>Not found</title></head><body>gone</body></html>")))
        }
        router.get("/endless-jpeg") { _, _ in
            let head = try fixture("grace_hopper.jpg").prefix(2048)
            return endless(head: Data(head), contentType: "image/jpeg", log: log)
        }
        router.get("/endless-html") { _, _ in
            endless(head: Data("<!DOCTYPE html><html><body>".utf8), contentType: "image/jpeg", log: log)
        }
        router.get("/declared-huge") { _, _ in
            let head = try fixture("grace_hopper.jpg").prefix(2048)
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg"],
                body: ResponseBody(contentLength: 1 << 30) { writer in
                    try await writer.write(ByteBuffer(bytes: head))
                    // Never sends the rest; the server's stop cancels this.
                    try await Task.sleep(for: .seconds(60))
                    try await writer.finish(nil)
                })
        }
    }

    /// Streams `head`, then 64 KiB chunks (one a millisecond at most) until the write fails or the request is cancelled (or
    /// 1 GiB, so that a client that never stops reading cannot keep the server up forever).
    private static func endless(head: Data, contentType: String, log: RequestLog) -> Response {
        Response(
            status: .ok, headers: [.contentType: contentType],
            body: ResponseBody { writer in
                defer { log.endlessStreamEnded() }
                try await writer.write(ByteBuffer(bytes: head))
                let chunk = ByteBuffer(repeating: 0x5A, count: 64 << 10)
                var sent = head.count
                while !Task.isCancelled, sent < 1 << 30 {
                    try await writer.write(chunk)
                    sent += chunk.readableBytes
                    log.endlessWrote(chunk.readableBytes)
                    // Hummingbird's writer does not wait for the client, so pace the stream.
                    try await Task.sleep(for: .milliseconds(1))
                }
                try await writer.finish(nil)
            })
    }

    private static func imageResponse(_ name: String, body: ResponseBody) throws -> Response {
        let type = name.hasSuffix(".png") ? "image/png" : "image/jpeg"
        return Response(status: .ok, headers: [.contentType: type], body: body)
    }

    /// The bytes of a fixture, read from disk.
    package static func fixture(_ name: String) throws -> Data {
        guard !name.contains("/") else { throw LoopbackError("bad fixture name \(name)") }
        return try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture(name)))
    }
}

/// Runs `body` with a fresh loopback server listening on `host` (default 127.0.0.1), and stops
/// the server afterwards, also when `body` throws.
package func withLoopbackServer<T>(host: String = "127.0.0.1", _ body: (LoopbackServer) async throws -> T) async throws -> T {
    let server = try await LoopbackServer.start(host: host)
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}

package struct LoopbackError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// What the server saw, readable from the tests.
private final class RequestLog: Sendable {
    private struct State {
        var hits: [String: Int] = [:]
        var endlessEnded = 0
        var endlessBytes = 0
    }
    private let state = Mutex(State())

    func record(_ path: String) { state.withLock { $0.hits[path, default: 0] += 1 } }
    func hits(_ path: String) -> Int { state.withLock { $0.hits[path] ?? 0 } }
    func endlessWrote(_ count: Int) { state.withLock { $0.endlessBytes += count } }
    func endlessStreamEnded() { state.withLock { $0.endlessEnded += 1 } }
    var endlessEnded: Int { state.withLock { $0.endlessEnded } }
    var endlessBytes: Int { state.withLock { $0.endlessBytes } }
}

/// Counts requests by path before routing them.
private struct CountingMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let log: RequestLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        log.record(request.uri.path)
        return try await next(request, context)
    }
}

/// A task executor on threads of its own (made once, for the life of the test process), which
/// the loopback servers and their request handlers prefer to Swift's cooperative pool.
final class ServerExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = ServerExecutor(threads: 2)

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by `condition`

    private init(threads: Int) {
        for index in 0..<threads {
            let thread = Thread { [self] in work() }
            thread.name = "loopback-server-\(index)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A TCP port on 127.0.0.1 that is bound but not listening, so that connecting to it is refused.
/// The port stays reserved (no other test can take it) until `close()`.
package final class RefusingPort: Sendable {
    package let port: Int
    private let descriptor: Int32

    package init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw LoopbackError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(descriptor, raw, length) == 0 && getsockname(descriptor, raw, &length) == 0
            }
        }
        guard bound else {
            Self.close(descriptor)
            throw LoopbackError("bind() failed: errno \(errno)")
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    package func close() { Self.close(descriptor) }

    private static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
