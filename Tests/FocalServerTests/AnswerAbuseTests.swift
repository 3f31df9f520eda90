import FocalTestSupport
import Foundation
import Testing

@testable import FocalServer

#if canImport(Glibc)
import Glibc
#endif

/// What clients that do not read their answers can do to `focal serve`, each on loopback: the
/// memory answers hold (one copy per stored answer, however many clients; a budget past which new
/// answers are refused), the pace a reader must keep, room at the connection cap, and requests
/// that do not keep their connection alive. (`make bench-abuse` measures the same attacks at
/// full size: `non-readers`, `slow-readers`.)
@Suite(.serialized) struct AnswerAbuseTests {
    /// A 2048 × 2048 PNG of the astronaut: about 7.4 MiB.
    static let large = "/unsafe/2048x2048/filters:format(png)/astronaut.png"

    static func get(_ path: String, keepAlive: Bool = true) -> String {
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n"
    }

    /// A process's resident memory (VmRSS), in MiB.
    static func residentMiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// The value of a counter in a `/metrics` text, 0 when absent.
    static func counter(_ text: String, _ series: String) -> Int {
        let line = text.split(separator: "\n").first { $0.hasPrefix(series + " ") } ?? ""
        return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
    }

    /// 300 clients ask for one large cached answer and never read it: the server holds one copy
    /// of it and a few pieces per connection (before, each connection held a whole copy: 1.4
    /// GiB for these 300), and `/healthz` still answers.
    @Test func nonReadingClientsShareOneCopy() async throws {
        let (process, port) = try await ServeProcess.start([])
        defer { if process.isRunning { process.terminate() } }
        let warm = try await RawHTTP.getOnAThread(port: port, path: Self.large, timeout: 120)
        #expect(warm.hasPrefix("HTTP/1.1 200"), "\(warm.prefix(200))")
        let pid = process.processIdentifier
        let before = Self.residentMiB(pid)
        var clients: [Raw] = []
        for _ in 0..<300 {
            let client = try Raw(port: port, receiveBuffer: 4096)
            try client.send(Self.get(Self.large))
            clients.append(client)
        }
        var peak = before
        for _ in 0..<20 {
            peak = max(peak, Self.residentMiB(pid))
            try await Task.sleep(for: .milliseconds(150))
        }
        let started = ContinuousClock.now
        let health = try await RawHTTP.getOnAThread(port: port, path: "/healthz", timeout: 20)
        let took = ContinuousClock.now - started
        peak = max(peak, Self.residentMiB(pid))
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(200))")
        // Answered while they hold on, not starved. The 1 s target is `make bench-abuse`'s, on a
        // release build; a debug build beside the other abuse suites on two cores took 2-6 s.
        #expect(took < .seconds(12), "/healthz took \(took) beside 300 clients that do not read")
        #expect(peak - before < 200, "resident memory went from \(before) to \(peak) MiB for 300 copies of one 7.4 MiB answer")
        for client in clients { client.close() }
    }

    /// Answers that do not share storage count on `--answer-memory` until they are written: past
    /// it a new answer is refused at once with 503 `server.answers_full` and `Retry-After`, and
    /// served again once the readers that held the memory have gone.
    @Test func answersPastTheirMemoryAreRefused() async throws {
        // No memory cache: each request renders its own copy.
        let (process, port) = try await ServeProcess.start(["--answer-memory", "16", "--memory-cache", "0"])
        defer { if process.isRunning { process.terminate() } }
        var holders: [Raw] = []
        for _ in 0..<2 {
            let holder = try Raw(port: port, receiveBuffer: 4096)
            try holder.send(Self.get(Self.large))
            let (head, _) = try holder.receiveHead(timeout: 120)
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(200))")
            holders.append(holder)
        }
        let refused = try await Raw.run(port: port) { socket in
            try socket.send(Self.get(Self.large, keepAlive: false))
            return try socket.receive(timeout: 120)
        }
        #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused.prefix(300))")
        #expect(refused.contains(#""code":"server.answers_full""#), "\(refused.prefix(300))")
        #expect(refused.lowercased().contains("retry-after: 1"), "\(refused.prefix(300))")
        for holder in holders { holder.close() }
        try await pollUntil("the answer memory is given back", seconds: 30) {
            let head = (try? RawHTTP.get(port: port, path: Self.large, timeout: 120))?.prefix(12) ?? ""
            return head.hasPrefix("HTTP/1.1 200")
        }
    }

    /// A client that stops reading has its connection closed once its socket has taken nothing
    /// for `answerGrace`; a client that reads at a fair pace gets its whole answer.
    @Test func aClientThatStopsReadingIsClosed() async throws {
        try await withServer(.live, { $0.requests.answerGrace = .seconds(1) }) { client in
            let port = try #require(client.port)
            let stopped = try Raw(port: port, receiveBuffer: 4096)
            try stopped.send(Self.get(Self.large))
            let (head, _) = try stopped.receiveHead(timeout: 120)
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head.prefix(200))")
            let declared = Int(
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }?
                    .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            try await Task.sleep(for: .seconds(4))
            // What is left in the buffers, then the end: far less than the answer.
            let received = stopped.receiveSlowly(upTo: declared, chunk: 1 << 20, pause: 0, timeout: 5)
            #expect(declared > 4 << 20)
            #expect(received < declared, "the whole answer arrived: the connection was not closed")

            let fair = try await Raw.run(port: port) { socket -> (String, Int) in
                try socket.send(Self.get("/unsafe/1024x1024/filters:format(png)/astronaut.png", keepAlive: false))
                let (head, early) = try socket.receiveHead(timeout: 120)
                return (head, early + socket.receiveSlowly(upTo: 64 << 20, chunk: 64 << 10, pause: 0.05, timeout: 60))
            }
            #expect(fair.0.hasPrefix("HTTP/1.1 200"))
            #expect(fair.0.lowercased().contains("content-length: \(fair.1)"), "a reader at about 1 MiB/s got it all: \(fair.1) bytes")
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(decoding: response.data, as: UTF8.self)
                #expect(Self.counter(text, #"focal_connections_closed_early_total{reason="answer_too_slow"}"#) == 1, "\(text.prefix(2000))")
            }
        }
    }

    /// At the connection cap, with every connection held by a client that does not read, the
    /// clients stalled the longest are closed to make room (their close is not held for their
    /// pending answer): a probe gets in within a second or two.
    @Test func stalledReadersMakeRoomAtTheCap() async throws {
        let (process, port) = try await ServeProcess.start(["--max-connections", "8"])
        defer { if process.isRunning { process.terminate() } }
        let warm = try await RawHTTP.getOnAThread(port: port, path: Self.large, timeout: 120)
        #expect(warm.hasPrefix("HTTP/1.1 200"))
        var stalled: [Raw] = []
        for _ in 0..<8 {
            let client = try Raw(port: port, receiveBuffer: 4096)
            try client.send(Self.get(Self.large))
            _ = try client.receiveHead(timeout: 30)
            stalled.append(client)
        }
        let started = ContinuousClock.now
        let health = try await RawHTTP.getOnAThread(port: port, path: "/healthz", timeout: 10)
        let took = ContinuousClock.now - started
        #expect(health.hasPrefix("HTTP/1.1 200"), "\(health.prefix(200))")
        #expect(took < .seconds(3), "the probe waited \(took) behind clients that do not read")
        let metrics = try await RawHTTP.getOnAThread(port: port, path: "/metrics", timeout: 10)
        #expect(Self.counter(metrics, #"focal_connections_closed_early_total{reason="evicted_stalled"}"#) >= 1, "\(metrics.suffix(1500))")
        for client in stalled { client.close() }
    }

    /// An HTTP/1.0 request without keep-alive has its connection closed once answered, not held
    /// until the next head's deadline; with `Connection: keep-alive` it stays open.
    @Test func http10ConnectionsCloseAfterTheirAnswer() async throws {
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let once = try Raw(port: port)
            try once.send("GET /healthz HTTP/1.0\r\n\r\n")
            let started = ContinuousClock.now
            let answer = try once.receive(timeout: 5)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")
            #expect(ContinuousClock.now - started < .seconds(2), "the connection was closed after its answer")
            let kept = try Raw(port: port)
            try kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let (head, _) = try kept.receiveHead(timeout: 5)
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(!kept.isClosed(waiting: 1.5), "a kept-alive connection stays open")
        }
    }

    /// A `CONNECT` is answered (no route takes it) and its connection closed at once: the HTTP
    /// parser reads no further request after one, so it used to stay open until the next head's
    /// deadline (10 s).
    @Test func connectIsClosedOnceAnswered() async throws {
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let socket = try Raw(port: port)
            defer { socket.close() }
            try socket.send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
            let started = ContinuousClock.now
            let (head, _) = try socket.receiveHead(timeout: 5)
            #expect(head.hasPrefix("HTTP/1.1 4"), "\(head.prefix(200))")
            #expect(socket.isClosed(waiting: 2), "the connection is closed after the answer")
            #expect(ContinuousClock.now - started < .seconds(3))
        }
    }

    /// A request with two `Host` headers, or an HTTP/1.1 request with none, is refused with a
    /// JSON 400 (a proxy and Focal could otherwise read different hosts).
    @Test(arguments: [
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: example.com\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n",
    ])
    func hostHeadersMustBeOne(request: String) async throws {
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let answer = try await Raw.run(port: port) { socket in
                try socket.send(request)
                return try socket.receive(timeout: 5)
            }
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
            #expect(answer.contains(#""code":"request.invalid""#), "\(answer)")
            #expect(answer.contains("Host"), "the message names the Host header: \(answer)")
        }
    }
}
