import Crypto
import Focal
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import FocalServer

#if canImport(Glibc)
import Glibc
#endif

/// What a hostile client can do to `focal serve`, each as a test on loopback that asserts the
/// refusal or the bound: admission of every expensive route, request heads and bodies that come
/// too slowly or are too large, body memory, the connection cap, parser errors, signed-only
/// reads, signature spellings, request ids, log lines and the headers every answer carries.
/// (`make bench-abuse` measures memory and latency under the same attacks.)
@Suite(.serialized) struct AbuseTests {
    // MARK: - Admission

    /// With a small memory budget held by one job (a download that keeps arriving), every route
    /// that reads, decodes or detects is refused at once with 429 and Retry-After: images,
    /// `meta/`, `/v1/plan`, `/v1/detect` and uploads all pass the same gate. (A job alone may go
    /// past the budget: an idle server never refuses one input within the image limits.)
    @Test func everyExpensiveRouteIsAdmittedThroughTheBudget() async throws {
        let photo = try Fixture.graceHopper.data
        try await withLoopbackServer { upstream in
            let endless = upstream.url("/endless-jpeg").absoluteString
            let encoded = endless.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? endless
            try await withServer({
                $0.pipeline.memoryBudget = 8 << 20
                $0.pipeline.memoryCacheBytes = 0
                $0.pipeline.limits.maxInputBytes = 96 << 20
                $0.pipeline.network.addressPolicy = AddressPolicy(allowedNetworks: [IPNetwork(IPAddress(127, 0, 0, 1))])
            }) { client in
                // The holder: a download that grows past the budget (alone, it may).
                let holder = Task { try await client.execute(uri: "/unsafe/meta/100x100/smart/\(encoded)", method: .get) { $0.status } }
                try await Task.sleep(for: .milliseconds(300))
                let bearer: HTTPFields = [.authorization: "Bearer \(TestSecrets.token)"]
                let plan = ByteBuffer(string: #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"1:1"}]}"#)
                let detect = ByteBuffer(string: #"{"source":{"path":"astronaut.png"}}"#)
                let requests: [(String, HTTPRequest.Method, ByteBuffer?, HTTPFields)] = [
                    ("/unsafe/100x100/smart/astronaut.png", .get, nil, [:]),
                    ("/unsafe/meta/100x100/smart/astronaut.png", .get, nil, [:]),
                    ("/v1/plan", .post, plan, [:]),
                    ("/v1/detect", .post, detect, [:]),
                    ("/v1/images", .post, ByteBuffer(bytes: photo), bearer),
                ]
                for (uri, method, body, headers) in requests {
                    try await client.execute(uri: uri, method: method, headers: headers, body: body) { response in
                        #expect(response.status == .tooManyRequests, "\(uri): \(response.status)")
                        #expect(response.headers[.retryAfter] == "1", "\(uri)")
                        #expect(response.json?["code"] as? String == "server.overloaded", "\(uri)")
                    }
                }
                #expect(try await holder.value == .contentTooLarge, "the holder ends at the byte limit")
                // Once it has gone, the same requests are served.
                try await client.execute(uri: "/unsafe/100x100/smart/astronaut.png", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    /// A cold file whose identity the catalog does not know yet is identified inside its job (so
    /// a refused request never hashed it), and the catalog learns the identity from that job.
    @Test func admissionHashesNothingFirst() async throws {
        let folder = try Scratch()
        defer { folder.remove() }
        try Fixture.graceHopper.data.write(to: folder.url.appendingPathComponent("late.jpg"))
        try await withServer({ $0.root = folder.url.path }) { client in
            try await client.execute(uri: "/unsafe/50x50/smart/late.jpg", method: .get) { response in
                #expect(response.status == .ok)
                let id = SHA256.hash(data: try Fixture.graceHopper.data).map { String(format: "%02x", $0) }.joined()
                #expect(response.headers[HTTPField.Name("xkey")!] == id)
            }
        }
    }

    /// An unknown id is a look-up in the index, never a scan: a photo added after the index was
    /// made is not found by its id until the index is refreshed (in the background).
    @Test func unknownIDsDoNotRescanTheRoot() async throws {
        let folder = try Scratch()
        defer { folder.remove() }
        try Fixture.graceHopper.data.write(to: folder.url.appendingPathComponent("first.jpg"))
        try await withServer({ $0.root = folder.url.path }) { client in
            try await client.execute(uri: "/v1/photos", method: .get) { response in
                #expect((response.json?["photos"] as? [Any])?.count == 1)
            }
            let added = try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("rocket.jpg")))
            try added.write(to: folder.url.appendingPathComponent("added.jpg"))
            let id = SHA256.hash(data: added).map { String(format: "%02x", $0) }.joined()
            for _ in 0..<3 {
                try await client.execute(uri: "/unsafe/50x50/id:\(id)", method: .get) { #expect($0.status == .notFound) }
            }
            try await client.execute(uri: "/v1/photos", method: .get) { response in
                #expect((response.json?["photos"] as? [Any])?.count == 1, "the root was not listed again by a request")
            }
        }
    }

    // MARK: - Bodies and heads

    /// A `Content-Length` over the limit is refused with 413 before a byte of the body is sent.
    @Test func anOverLimitContentLengthIsRefusedAtOnce() async throws {
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let answer = try await Raw.run(port: port) { socket in
                try socket.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n")
                return try socket.receive(timeout: 5)
            }
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(200))")
            #expect(answer.contains(#""code":"request.too_large""#))
        }
    }

    /// A head that does not arrive whole within the header deadline is answered 408 and closed;
    /// a connection that sends nothing is closed at the same deadline, silently.
    @Test func aSlowHeadIsAnswered408() async throws {
        try await withServer(.live, { $0.requests.headerTimeout = .seconds(1) }) { client in
            let port = try #require(client.port)
            let started = ContinuousClock.now
            let answer = try await Raw.run(port: port) { socket in
                try socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                return try socket.receive(timeout: 10)
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(200))")
            #expect(answer.contains(#""code":"request.timeout""#))
            #expect(ContinuousClock.now - started < .seconds(8))
            // A connection that sends nothing at all is closed without a word.
            let silent = try await Raw.run(port: port) { socket in try socket.receive(timeout: 8) }
            #expect(silent.isEmpty, "\(silent.prefix(100))")
        }
    }

    /// A body that drips (a byte every half second) is closed once past its grace, long before
    /// the idle timeout; a body that stalls is closed at the body deadline.
    @Test func dripAndStalledBodiesAreClosed() async throws {
        try await withServer(.live, {
            $0.requests.bodyTimeout = .seconds(3)
            $0.requests.bodyGrace = .seconds(1)
            $0.requests.bodyMinRate = 1024
        }) { client in
            let port = try #require(client.port)
            let head = "POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
            let drip = try await Raw.run(port: port) { socket -> Bool in
                try socket.send(head)
                for _ in 0..<40 {
                    guard (try? socket.send("x")) != nil else { return true }
                    if socket.isClosed(waiting: 0.5) { return true }
                }
                return false
            }
            #expect(drip, "a dripping body's connection is closed")
            let stalled = try await Raw.run(port: port) { socket -> Bool in
                try socket.send(head + String(repeating: "x", count: 900))
                return socket.isClosed(waiting: 10)
            }
            #expect(stalled, "a stalled body's connection is closed at the body deadline")
        }
    }

    /// Declared bodies are reserved on the server's body memory: once it is spent, the next
    /// request with a body is answered 429 at once, and the memory comes back when the holder goes.
    @Test func bodyMemoryIsCappedAcrossConnections() async throws {
        try await withServer(.live, { $0.requests.maxBodyMemory = 1 << 20; $0.requests.maxJSONBytes = 1 << 20 }) { client in
            let port = try #require(client.port)
            let holder = try Raw(port: port)
            try holder.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n{")
            try await Task.sleep(for: .milliseconds(200))
            let refused = try await Raw.run(port: port) { socket in
                try socket.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
                return try socket.receive(timeout: 5)
            }
            #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused.prefix(200))")
            #expect(refused.contains(#""code":"server.overloaded""#))
            holder.close()
            var given = false
            for _ in 0..<50 where !given {
                try await Task.sleep(for: .milliseconds(100))
                let answer = try await Raw.run(port: port) { socket in
                    try socket.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n")
                    return try socket.receive(timeout: 0.3)
                }
                given = !answer.hasPrefix("HTTP/1.1 429")
            }
            #expect(given, "the holder's memory is given back once it goes")
        }
    }

    /// A client that goes away in the middle of its body: the part that came is never handled as
    /// a whole body (a truncated upload is not stored), and nothing is counted as a server failure.
    @Test func aBodyCutShortIsNotHandled() async throws {
        let photo = try Fixture.graceHopper.data
        try await withServer(.live) { client in
            let port = try #require(client.port)
            _ = try await Raw.run(port: port) { socket in
                try socket.send(
                    "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestSecrets.token)\r\n"
                        + "Content-Length: \(photo.count)\r\n\r\n")
                try RawHTTP.send(socket.descriptor, photo.prefix(photo.count / 2))
                Thread.sleep(forTimeInterval: 0.3)
            }
            try await Task.sleep(for: .milliseconds(500))
            let half = SHA256.hash(data: photo.prefix(photo.count / 2)).map { String(format: "%02x", $0) }.joined()
            try await client.execute(uri: "/v1/images/\(half)", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(decoding: response.data, as: UTF8.self)
                #expect(text.contains(#"focal_http_requests_total{route="/v1/images",status="499"} 1"#), "\(text.prefix(3000))")
                #expect(!text.contains(#"status="500""#))
            }
        }
    }

    /// At the connection cap (`focal serve --max-connections 2`, a process of its own), the
    /// connection idle the longest is closed to make room: a crowd of idle connections cannot keep
    /// a new client waiting. Connections that are busy (sending a body) are not closed: then a new
    /// connection waits until one ends.
    @Test func connectionsAreCapped() async throws {
        let (process, port) = try await ServeProcess.start(["--max-connections", "2"])
        defer { if process.isRunning { process.terminate() } }
        let idle = try (0..<2).map { _ in try Raw(port: port) }
        try await Task.sleep(for: .milliseconds(300))
        let newcomer = try await Raw.run(port: port) { socket in
            try socket.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return try socket.receive(timeout: 5)
        }
        #expect(newcomer.hasPrefix("HTTP/1.1 200"), "an idle connection made room: \(newcomer.prefix(100))")
        #expect(idle[0].isClosed(waiting: 2), "the oldest idle connection was closed")
        for socket in idle { socket.close() }
        try await Task.sleep(for: .milliseconds(300))

        let busy = try (0..<2).map { _ in try Raw(port: port) }
        for socket in busy { try socket.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{") }
        try await Task.sleep(for: .milliseconds(300))
        let waiting = try Raw(port: port)
        try waiting.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(try waiting.receive(timeout: 1).isEmpty, "busy connections are not closed: the third waits in the backlog")
        busy[0].close()
        let answer = try waiting.receive(timeout: 10)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(100))")
        for socket in busy { socket.close() }
    }

    /// At the cap, connections that never sent a request are closed before one a client uses
    /// (between its requests): a crowd of silent connections cannot push a real client out.
    @Test func silentConnectionsGoBeforeUsedOnes() async throws {
        let (process, port) = try await ServeProcess.start(["--max-connections", "4"])
        defer { if process.isRunning { process.terminate() } }
        let used = try Raw(port: port)
        let request = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        try used.send(request)
        let (first, _) = try used.receiveHead(timeout: 5)
        #expect(first.hasPrefix("HTTP/1.1 200"))
        var silent: [Raw] = []
        for _ in 0..<6 {
            silent.append(try Raw(port: port))
            try await Task.sleep(for: .milliseconds(150))
        }
        #expect(silent.prefix(3).contains { $0.isClosed(waiting: 0.5) }, "silent connections were closed to make room")
        try used.send(request)
        let (second, _) = try used.receiveHead(timeout: 5)
        #expect(second.hasPrefix("HTTP/1.1 200"), "the connection in use was kept: \(second.prefix(100))")
        for socket in silent { socket.close() }
        used.close()
    }

    /// What the HTTP parser refuses is answered 400 with a JSON body, not a bare 400 or a 500.
    @Test(arguments: [
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: xchunked\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "BLAH\0 / HTTP/1.1\r\n\r\n",
    ])
    func parserErrorsAreJSON(request: String) async throws {
        try await withServer(.live) { client in
            let port = try #require(client.port)
            let answer = try await Raw.run(port: port) { socket in
                try socket.send(request)
                return try socket.receive(timeout: 5)
            }
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(200))")
            #expect(answer.contains(#""code":"request.invalid""#), "\(answer)")
        }
    }

    /// SIGTERM while large renders are being read slowly: every response arrives whole (its
    /// bytes match its Content-Length), and the process exits within its shutdown bound.
    @Test func sigtermCompletesLargeResponses() async throws {
        let (process, port) = try await ServeProcess.start([
            "--memory-cache", "0", "--request-timeout", "20", "--header-timeout", "2", "--body-timeout", "2",
        ])
        defer { if process.isRunning { process.terminate() } }
        let sizes = [(4000, 3488), (3600, 3139), (3200, 2790)]
        let started = Mutex(0)
        let readers = sizes.map { size in
            Tracked { () throws -> (declared: Int, received: Int) in
                try await Raw.run(port: port) { socket in
                    try socket.send("GET /unsafe/\(size.0)x\(size.1)/filters:format(png)/hubble_deep_field.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    let (head, body) = try socket.receiveHead(timeout: 60)
                    started.withLock { $0 += 1 }
                    let declared = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? -1
                    // A slow reader: 64 KiB every 10 ms, so the answer is still being written at SIGTERM.
                    let received = body + socket.receiveSlowly(upTo: declared - body, chunk: 65536, pause: 0.01, timeout: 60)
                    return (declared, received)
                }
            }
        }
        try await pollUntil("every render has started answering", seconds: 60) { started.withLock { $0 } == sizes.count }
        let signalled = ContinuousClock.now
        process.terminate()  // SIGTERM
        for reader in readers {
            let (declared, received) = try await reader.value(within: 60)
            #expect(declared > 4_000_000, "a large answer (\(declared) bytes)")
            #expect(received == declared, "the whole answer arrives: \(received) of \(declared) bytes")
        }
        try await pollUntil("the process exits", seconds: 40) { !process.isRunning }
        #expect(process.terminationStatus == 0)
        #expect(ContinuousClock.now - signalled < .seconds(20 + 5 + 3), "within the shutdown bound")
    }

    /// SIGTERM with a client that never reads its large answer and one that drips a body: the
    /// process still exits within the request timeout plus 5 s.
    @Test func shutdownIsBoundedWhateverClientsDo() async throws {
        let (process, port) = try await ServeProcess.start(["--memory-cache", "0", "--request-timeout", "3"])
        defer { if process.isRunning { process.terminate() } }
        let stuck = try Raw(port: port)
        try stuck.send("GET /unsafe/4000x3488/filters:format(png)/hubble_deep_field.jpg HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try stuck.receiveHead(timeout: 60)  // then reads nothing more: the server's writes back up
        let drip = try Raw(port: port)
        try drip.send("POST /v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{")
        let signalled = ContinuousClock.now
        process.terminate()
        try await pollUntil("the process exits", seconds: 30) {
            try? drip.send(" ")
            return !process.isRunning
        }
        #expect(ContinuousClock.now - signalled < .seconds(3 + 5 + 3), "exits within the request timeout plus 5 s")
        stuck.close()
        drip.close()
    }

    // MARK: - Signed-only

    /// With keys and no unsafe URLs, nothing of the JSON API is readable without the token or a
    /// request signature; `--public-photos` opens the list and the originals only.
    @Test func signedOnlyMeansSignedEverything() async throws {
        let id = SHA256.hash(data: try Fixture.graceHopper.data).map { String(format: "%02x", $0) }.joined()
        let plan = #"{"source":{"path":"grace_hopper.jpg"},"frames":[{"aspect":"1:1"}]}"#
        try await withServer({ $0.allowUnsafe = false }) { client in
            for (uri, method, body) in [
                ("/v1/photos", HTTPRequest.Method.get, nil), ("/v1/images/\(id)", .get, nil), ("/v1/images/\(id)/overrides", .get, nil),
                ("/v1/plan", .post, ByteBuffer(string: plan)), ("/v1/detect", .post, ByteBuffer(string: #"{"source":{"url":"https://example.com/a.jpg"}}"#)),
            ] as [(String, HTTPRequest.Method, ByteBuffer?)] {
                try await client.execute(uri: uri, method: method, body: body) { response in
                    #expect(response.status == .unauthorized, "\(uri) without a signature")
                }
            }
            let bearer: HTTPFields = [.authorization: "Bearer \(TestSecrets.token)"]
            try await client.execute(uri: "/v1/photos", method: .get, headers: bearer) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/images/\(id)", method: .get, headers: bearer) { response in
                #expect(response.status == .ok)
                #expect(response.data == (try? Fixture.graceHopper.data))
            }
            // A request signature of the method, path and body, with any key.
            for key in TestSecrets.keys {
                let signature = Authorization.signature(method: "POST", path: "/v1/plan", body: ByteBuffer(string: plan), key: key)
                try await client.execute(uri: "/v1/plan", method: .post, headers: [.focalSignature: signature], body: ByteBuffer(string: plan)) {
                    #expect($0.status == .ok)
                }
                // The same signature does not cover another body.
                try await client.execute(
                    uri: "/v1/plan", method: .post, headers: [.focalSignature: signature], body: ByteBuffer(string: plan + " ")
                ) { #expect($0.status == .unauthorized) }
            }
            let get = Authorization.signature(method: "GET", path: "/v1/photos", body: nil, key: TestSecrets.keys[1])
            try await client.execute(uri: "/v1/photos?signature=\(get)", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/photos", method: .get, headers: [.focalSignature: "x" + get]) {
                #expect($0.status == .unauthorized)
            }
            // The configuration tells the page that reads need the token.
            try await client.execute(uri: "/v1/config", method: .get) { #expect($0.json?["signedReads"] as? Bool == true) }
        }
        try await withServer({ $0.allowUnsafe = false; $0.publicPhotos = true }) { client in
            try await client.execute(uri: "/v1/photos", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/images/\(id)", method: .get) { #expect($0.status == .ok) }
            // Public photos are planned for anyone (the page shows what Focal saw of them); other
            // sources still need a signature or the token.
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: plan)) { #expect($0.status == .ok) }
            let remote = #"{"source":{"url":"https://example.com/a.jpg"},"frames":[{"aspect":"1:1"}]}"#
            try await client.execute(uri: "/v1/plan", method: .post, body: ByteBuffer(string: remote)) { #expect($0.status == .unauthorized) }
        }
    }

    /// `/metrics` answers only the networks allowed (loopback by default): not a peer it cannot
    /// place, not a loopback peer when only another network is allowed.
    @Test func metricsAnswerOnlyAllowedNetworks() async throws {
        try await withServer(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .notFound) }
        }
        try await withServer(.live, { $0.metricsNetworks = [IPNetwork(IPAddress(203, 0, 113, 1))] }) { client in
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status == .notFound) }
        }
        try await withServer(.live) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(decoding: response.data, as: UTF8.self).contains("focal_http_connections_open"))
            }
        }
    }

    // MARK: - Small things

    /// A valid signature followed by anything (256 NUL bytes: the old compare ignored a length
    /// difference of 256) is refused.
    @Test func signaturesCompareAtTheirExactLength() async throws {
        let path = "100x100/smart/grace_hopper.jpg"
        let signature = URLSigner.signature(of: path, key: TestSecrets.keys[0])
        try await withServer({ $0.allowUnsafe = false }) { client in
            try await client.execute(uri: "/\(signature)/\(path)", method: .get) { #expect($0.status == .ok) }
            let padded = signature + String(repeating: "A", count: 256)
            try await client.execute(uri: "/\(padded)/\(path)", method: .get) { #expect($0.status == .forbidden) }
            // Percent-encoded, it is another spelling: refused before it is compared.
            let encoded = signature + String(repeating: "%00", count: 256)
            try await client.execute(uri: "/\(encoded)/\(path)", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["code"] as? String == "request.not_canonical")
            }
        }
        #expect(!URLSigner.constantTimeEqual(Array("abc".utf8), Array(("abc" + String(repeating: "\0", count: 256)).utf8)))
    }

    /// A client's request id is echoed only when it is short and plain; otherwise a new one.
    @Test func requestIDsAreValidated() async throws {
        try await withServer { client in
            try await client.execute(uri: "/healthz", method: .get, headers: [.requestID: "abc-123.x:y_z"]) {
                #expect($0.headers[.requestID] == "abc-123.x:y_z")
            }
            for hostile in [String(repeating: "a", count: 65), "a b", "a\"b", "ü"] {
                try await client.execute(uri: "/healthz", method: .get, headers: [.requestID: hostile]) { response in
                    let echoed = response.headers[.requestID] ?? ""
                    #expect(echoed != hostile && echoed.count == 16)
                }
            }
        }
    }

    /// Logged paths and errors carry no credentials and are bounded.
    @Test func logLinesHideCredentialsAndAreBounded() {
        #expect(RequestObserver<FocalRequestContext>.loggable("/unsafe/100x100/http://user:secret@example.com/a.jpg")
            == "/unsafe/100x100/http://***@example.com/a.jpg")
        #expect(RequestObserver<FocalRequestContext>.withoutCredentials("http%3A%2F%2Fuser%3Asecret%40example.com%2Fa.jpg")
            .contains("secret") == false)
        let long = RequestObserver<FocalRequestContext>.loggable("/unsafe/" + String(repeating: "h", count: 70_000))
        #expect(long.count < 600)
        let summary = testConfiguration().summary.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        for secret in TestSecrets.keys + [TestSecrets.token] {
            #expect(!summary.contains(secret) && !summary.contains(String(secret.prefix(2)) + "…"), "\(summary)")
        }
    }

    /// Every answer carries nosniff; images and JSON a policy that runs nothing; the page its own.
    @Test func everyAnswerCarriesSecurityHeaders() async throws {
        try await withServer { client in
            for uri in ["/unsafe/50x50/smart/grace_hopper.jpg", "/v1/config", "/v1/nothing", "/"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(uri == "/" ? policy.contains("script-src 'self'") : policy == "default-src 'none'; sandbox", "\(uri): \(policy)")
                }
            }
        }
    }
}

/// A blocking loopback socket for what a client library hides: partial heads, dripping bodies,
/// connections held open.
final class Raw: @unchecked Sendable {
    private let fd: Int32
    private var closed = false
    /// The socket, for writes of bytes.
    var descriptor: Int32 { fd }

    init(port: Int, receiveBuffer: Int32? = nil) throws { fd = try RawHTTP.connect(port, receiveBuffer: receiveBuffer) }

    deinit { close() }

    func send(_ text: String) throws { try RawHTTP.send(fd, Data(text.utf8)) }

    /// Everything received until the peer closes or `timeout` seconds pass.
    func receive(timeout: Double) throws -> String {
        (try? RawHTTP.receive(fd, until: nil, timeout: timeout)) ?? ""
    }

    /// Whether the peer closes (or resets) the connection within `waiting` seconds.
    func isClosed(waiting: Double) -> Bool {
        let deadline = Date().addingTimeInterval(waiting)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { return true }
            guard poller.revents != 0 else { continue }
            if recv(fd, &buffer, buffer.count, 0) <= 0 { return true }
        }
        return false
    }

    /// Reads until the end of a response head; returns the head and how many body bytes came
    /// with it.
    func receiveHead(timeout: Double) throws -> (String, Int) {
        var received = Data()
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        let marker = Data("\r\n\r\n".utf8)
        while Date() < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { throw RawHTTP.Failure() }
            received.append(contentsOf: buffer[0..<n])
            if let end = received.range(of: marker) {
                return (String(decoding: received[..<end.lowerBound], as: UTF8.self), received.count - end.upperBound)
            }
        }
        throw RawHTTP.Failure()
    }

    /// Reads up to `count` bytes `chunk` at a time with a pause between reads; returns how many
    /// arrived before the peer closed or `timeout` seconds passed.
    func receiveSlowly(upTo count: Int, chunk: Int, pause: Double, timeout: Double) -> Int {
        var total = 0
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: chunk)
        while total < count, Date() < deadline {
            let n = recv(fd, &buffer, min(chunk, count - total), 0)
            guard n > 0 else { break }
            total += n
            Thread.sleep(forTimeInterval: pause)
        }
        return total
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// Runs `body` with a new connection on a thread of its own.
    static func run<T: Sendable>(port: Int, _ body: @escaping @Sendable (Raw) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result {
                    let socket = try Raw(port: port)
                    defer { socket.close() }
                    return try body(socket)
                })
            }.start()
        }
    }
}
