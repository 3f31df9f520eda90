import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The service on a real socket: the same image request over the network, `Expect:
/// 100-continue`, a burst beyond the queue, and graceful shutdown of the `focal serve` process.
@Suite(.serialized) struct LiveServerTests {
    @Test func imagesOverARealSocket() async throws {
        try await withServer(.live) { client in
            try await client.execute(uri: "/unsafe/200x100/smart/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.imageSize == PixelSize(width: 200, height: 100))
            }
            try await client.execute(uri: signed("200x100/smart/grace_hopper.jpg", key: "wrong"), method: .get) {
                #expect($0.status == .forbidden)
            }
        }
    }

    /// A client that asks `Expect: 100-continue` gets `100 Continue` before it sends the body.
    @Test func expectContinueIsAnswered() async throws {
        let photo = try Fixture.graceHopper.data
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let exchange = try await RawHTTP.exchange(port: port, head: [
                "POST /v1/images HTTP/1.1", "Host: 127.0.0.1", "Content-Length: \(photo.count)", "Expect: 100-continue",
                "Authorization: Bearer \(TestSecrets.token)",
            ], body: photo)
            #expect(exchange.interim.hasPrefix("HTTP/1.1 100"), "interim: \(exchange.interim)")
            #expect(exchange.final.hasPrefix("HTTP/1.1 201"), "final: \(exchange.final.prefix(200))")
        }
    }

    /// With a small queue, a burst of ten times the workers gets prompt 429s (with Retry-After)
    /// for the excess, and every accepted request completes. (One client holds at most half of
    /// the 4 places.)
    @Test func aBurstBeyondTheQueueIsRefusedAndTheRestComplete() async throws {
        try await withServer(.live, { $0.pipeline.workers = 1; $0.pipeline.maxJobs = 4; $0.pipeline.memoryCacheBytes = 0 }) { client in
            let port = try #require(client.port)
            // Ten connections at once (the test client would send one request at a time), each a
            // distinct size: distinct jobs, none shared.
            let responses = try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<10 {
                    group.addTask { try await RawHTTP.getOnAThread(port: port, path: "/unsafe/\(100 + i)x100/smart/astronaut.png", timeout: 60) }
                }
                var all: [String] = []
                for try await response in group { all.append(response) }
                return all
            }
            let refused = responses.filter { $0.hasPrefix("HTTP/1.1 429") }, served = responses.filter { $0.hasPrefix("HTTP/1.1 200") }
            #expect(refused.count + served.count == 10, "\(responses.map { $0.prefix(40) })")
            #expect(!refused.isEmpty, "a client's 2 places cannot hold 10 distinct requests at once")
            #expect(served.count >= 2)
            #expect(refused.allSatisfy { $0.lowercased().contains("retry-after: 1") }, "429 carries Retry-After")
            #expect(refused.allSatisfy { $0.contains("server.overloaded") })
        }
    }

    /// Standard error a pipe whose reader has gone: every log line fails with EPIPE, and the
    /// server still answers (it used to die of SIGPIPE, or trap in Foundation's `write(_:)`).
    @Test func aClosedLogPipeDoesNotEndTheServer() async throws {
        // The reader is closed before the child starts, so that it cannot inherit it: its first
        // line ("starting") already meets a pipe nobody reads.
        let logs = Pipe()
        try logs.fileHandleForReading.close()
        let (process, port) = try await ServeProcess.start(["--log-level", "info"], standardError: logs.fileHandleForWriting)
        defer { if process.isRunning { process.terminate() } }
        try logs.fileHandleForWriting.close()
        for i in 0..<5 {
            let response = try RawHTTP.get(port: port, path: "/unsafe/\(100 + i)x100/smart/grace_hopper.jpg", timeout: 30)
            #expect(response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(200))")
        }
        let missing = try RawHTTP.get(port: port, path: "/unsafe/100x100/smart/none.jpg", timeout: 30)
        #expect(missing.hasPrefix("HTTP/1.1 404"), "\(missing.prefix(200))")
        #expect(process.isRunning)
        process.terminate()
        try await pollUntil("the process exits", seconds: 30) { !process.isRunning }
        #expect(process.terminationReason == .exit, "it ended by its own SIGTERM handling, not a signal or a trap")
    }

    /// SIGTERM during a request: the request finishes, then the process exits cleanly.
    @Test func sigtermLetsInFlightRequestsFinish() async throws {
        try await withLoopbackServer { upstream in
            let (process, port) = try await ServeProcess.start(["--allow-network", "127.0.0.1"])
            defer { if process.isRunning { process.terminate() } }
            let base = "http://127.0.0.1:\(port)"
            // The source answers after a second: the request is surely in flight when SIGTERM comes.
            let slow = upstream.url("/slow/1/astronaut.png").absoluteString
            let encoded = slow.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? slow
            let request = Tracked { try await RawHTTP.getOnAThread(port: port, path: "/unsafe/100x100/smart/\(encoded)", timeout: 30) }
            try await pollUntil("the upstream sees the request") { upstream.hits("/slow/1/astronaut.png") == 1 }
            process.interrupt()  // SIGINT; SIGTERM behaves the same (ServiceLifecycle handles both)
            let response = try await request.value(within: 30)
            #expect(response.hasPrefix("HTTP/1.1 200"), "\(response.prefix(300))")
            try await pollUntil("the process exits", seconds: 30) { !process.isRunning }
            #expect(process.terminationStatus == 0)
            #expect((try? RawHTTP.get(port: port, path: "/healthz", timeout: 2)) == nil, "nothing listens at \(base) any more")
        }
    }
}

/// `focal serve` as a process of its own: the fixtures as its root, unsafe URLs, the checkout's
/// models, a free loopback port; `arguments` add flags, `standardError` takes its log (default:
/// discarded).
enum ServeProcess {
    /// Starts it and waits until `/readyz` answers 200; the caller terminates it. `unsafe: false`
    /// leaves out `--allow-unsafe` (a signed-only server).
    static func start(_ arguments: [String], unsafe: Bool = true, standardError: FileHandle? = nil) async throws -> (Process, port: Int) {
        let port = try FreePort.pick()
        let process = Process()
        // This test process ignores SIGPIPE, and a child inherits that; `env --default-signal`
        // starts `focal` with the default a shell or a service manager gives it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--default-signal=PIPE", Checkout.focal] + [
            "serve", "--port", String(port), "--root", Checkout.root.appendingPathComponent("Fixtures").path,
            "--models", Checkout.models, "--log-level", "error",
        ] + (unsafe ? ["--allow-unsafe"] : []) + arguments
        process.standardError = standardError ?? FileHandle.nullDevice
        try process.run()
        do {
            try await pollUntil("focal serve is ready", seconds: 60) {
                (try? RawHTTP.get(port: port, path: "/readyz"))?.hasPrefix("HTTP/1.1 200") == true
            }
        } catch {
            process.terminate()
            throw error
        }
        return (process, port)
    }
}

/// A port nobody listens on now.
enum FreePort {
    static func pick() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Plain HTTP/1.1 over a blocking socket, for what a test client library hides: interim
/// responses, and requests to a process.
enum RawHTTP {
    struct Failure: Error {}

    /// Sends the head, reads until the head of the interim response, sends the body, reads the rest.
    static func exchange(port: Int, head: [String], body: Data) async throws -> (interim: String, final: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let fd = try connect(port)
                    defer { close(fd) }
                    try send(fd, Data((head.joined(separator: "\r\n") + "\r\n\r\n").utf8))
                    let interim = try receive(fd, until: "\r\n\r\n", timeout: 10)
                    try send(fd, body)
                    let final = try receive(fd, until: "}", timeout: 30)
                    return (interim, final)
                })
            }.start()
        }
    }

    /// `get` on a thread of its own, so that no cooperative thread blocks.
    static func getOnAThread(port: Int, path: String, timeout: Double) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try get(port: port, path: path, timeout: timeout) }) }.start()
        }
    }

    /// A GET whose whole response (head and body, as text) is returned; the server closes.
    /// `from` is the client's own loopback address (127.0.0.2 is another client than 127.0.0.1).
    static func get(port: Int, path: String, from: String = "127.0.0.1", timeout: Double = 10) throws -> String {
        let fd = try connect(port, from: from)
        defer { close(fd) }
        try send(fd, Data("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        return try receive(fd, until: nil, timeout: timeout)
    }

    /// A POST of a JSON body whose whole response is returned; the server closes.
    static func post(port: Int, path: String, json: Data, from: String = "127.0.0.1", timeout: Double = 10) throws -> String {
        let fd = try connect(port, from: from)
        defer { close(fd) }
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(json.count)\r\n\r\n"
        try send(fd, Data(head.utf8) + json)
        return try receive(fd, until: nil, timeout: timeout)
    }

    /// A connected socket from the loopback address `from`; `receiveBuffer` sets its receive
    /// buffer first (a client that reads nothing then takes little of an answer into its kernel).
    static func connect(_ port: Int, from: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure() }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if from != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(from)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard bound else {
                close(fd)
                throw Failure()
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            throw Failure()
        }
        return fd
    }

    static func send(_ fd: Int32, _ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                guard let base = raw.baseAddress else { throw Failure() }
                let n = Glibc.send(fd, base + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                guard n > 0 else { throw Failure() }
                sent += n
            }
        }
    }

    /// Reads until `marker` appears (or, with nil, until the peer closes), within `timeout` seconds.
    static func receive(_ fd: Int32, until marker: String?, timeout: Double) throws -> String {
        var received = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { throw Failure() }
            guard poller.revents != 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return String(decoding: received, as: UTF8.self) }
            received.append(contentsOf: buffer[0..<n])
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) { return String(decoding: received, as: UTF8.self) }
        }
        if marker == nil, received.isEmpty { throw Failure() }
        return String(decoding: received, as: UTF8.self)
    }
}
