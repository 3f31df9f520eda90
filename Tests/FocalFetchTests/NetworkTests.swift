import Focal
import Foundation
import FocalTestSupport
import Testing

/// URL inputs fetched from a real HTTP server on 127.0.0.1 (see `LoopbackServer`): images,
/// timeouts, byte limits, redirects, statuses, content sniffing, decode errors, caches,
/// fallbacks and the command line.
@Suite("URL inputs against a real HTTP server on loopback")
struct NetworkTests {
    static let square = CropTarget.size(width: 400, height: 400)

    /// How soon a failure that must not wait for the server has to come back. The slow routes
    /// used with it wait 20 s, and the endless ones would take 16 s or more to reach 1 GiB, so
    /// anything that waits for the server fails; the margin is for other tests running at once
    /// and keeping Swift's cooperative pool busy (it is as wide as the cores, here two).
    static let prompt = Duration.seconds(10)

    /// 127.0.0.1, where the test servers listen. The library refuses loopback addresses unless
    /// they are allowed, as `pipeline` does.
    static let loopback = IPNetwork(IPAddress(127, 0, 0, 1))

    /// A pipeline on the checkout's models with these limits and network settings, whose address
    /// policy also allows 127.0.0.1 unless `allowLoopback` is false.
    static func pipeline(
        limits: ImageLimits = .default, network: NetworkSettings = NetworkSettings(), modelsPath: String = Checkout.models,
        allowLoopback: Bool = true
    ) -> FocalPipeline {
        var network = network
        if allowLoopback { network.addressPolicy.allowedNetworks.append(loopback) }
        return FocalPipeline(configuration: FocalConfiguration(modelsPath: modelsPath, limits: limits, network: network))
    }

    /// Whether `error` names `url` in its description and, for `FetchError`, in `url`.
    static func names(_ error: any Error, _ url: URL) -> Bool {
        if let fetch = error as? FetchError, fetch.url != url.absoluteString { return false }
        return "\(error)".contains(url.absoluteString)
    }

    /// Waits up to `limit` for `condition` to hold; returns whether it did.
    static func eventually(within limit: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    /// Runs `body`, returning the error it throws and the time it took.
    static func timed<E: Error, T>(
        _ type: E.Type, _ body: () async throws -> T
    ) async -> (error: E?, elapsed: Duration, other: (any Error)?) {
        let start = ContinuousClock.now
        do {
            _ = try await body()
            return (nil, ContinuousClock.now - start, nil)
        } catch let error as E {
            return (error, ContinuousClock.now - start, nil)
        } catch {
            return (nil, ContinuousClock.now - start, error)
        }
    }

    // MARK: - Images

    @Test("a served PNG or JPEG crops exactly as the same file on disk, to a decodable 400x400 image", arguments: [
        ("astronaut.png", "png"), ("grace_hopper.jpg", "jpeg"),
    ])
    func servedImage(name: String, format: String) async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/\(name)")
            let pipeline = Self.pipeline()
            let remote = try await pipeline.crop(.url(url), to: Self.square)
            let local = try await Self.pipeline().crop(.file(Checkout.fixture(name)), to: Self.square)
            #expect(remote.plan == local.plan)
            #expect(remote.detected == local.detected)
            #expect(remote.plan.strategy == .faces)
            #expect(remote.origin == .fresh)
            let decoded = try SourceImage.open(data: remote.data)
            #expect(decoded.size == PixelSize(width: 400, height: 400))
            #expect(decoded.format == format)
            #expect(server.hits("/image/\(name)") == 1)
            #expect(pipeline.statistics.downloads == 1)
        }
    }

    @Test("a body streamed in chunks without Content-Length is read whole")
    func chunked() async throws {
        try await withLoopbackServer { server in
            let remote = try await Self.pipeline().crop(.url(server.url("/chunked/grace_hopper.jpg")), to: .aspect(width: 16, height: 9))
            let local = try await Self.pipeline().crop(.file(Checkout.fixture("grace_hopper.jpg")), to: .aspect(width: 16, height: 9))
            #expect(remote.plan == local.plan)
            #expect(remote.detected == local.detected)
        }
    }

    @Test("analyze of a URL finds the same image and subjects as of the file")
    func analyzeURL() async throws {
        try await withLoopbackServer { server in
            let remote = try await Self.pipeline().analyze(.url(server.url("/image/astronaut.png")))
            let local = try await Self.pipeline().analyze(.file(Checkout.fixture("astronaut.png")))
            #expect(remote.image.size == PixelSize(width: 512, height: 512))
            #expect(remote.subjects == local.subjects)
            #expect(remote.subjects.contains { $0.kind == .face })
        }
    }

    // MARK: - Timeouts

    @Test("a server slower than the total timeout gives .fetchTimeout naming the URL, long before it answers")
    func totalTimeout() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/slow/20/astronaut.png")
            let pipeline = Self.pipeline(network: NetworkSettings(totalTimeout: .milliseconds(500)))
            let (error, elapsed, other) = await Self.timed(FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
            #expect(other == nil, "\(String(describing: other))")
            let fetch = try #require(error)
            #expect(fetch.code == .fetchTimeout)
            #expect(Self.names(fetch, url), "\(fetch)")
            #expect(elapsed >= .milliseconds(450), "it waited for the timeout")
            #expect(elapsed < Self.prompt, "took \(elapsed): it waited for the server")
        }
    }

    @Test("a server silent for longer than the read timeout gives .fetchTimeout naming the URL")
    func readTimeout() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/slow/20/astronaut.png")
            let pipeline = Self.pipeline(network: NetworkSettings(readTimeout: .milliseconds(500), totalTimeout: .seconds(30)))
            let (error, elapsed, other) = await Self.timed(FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
            #expect(other == nil, "\(String(describing: other))")
            let fetch = try #require(error)
            #expect(fetch.code == .fetchTimeout)
            #expect(Self.names(fetch, url), "\(fetch)")
            #expect(elapsed < Self.prompt, "took \(elapsed): it waited for the server")
        }
    }

    @Test("a server faster than the timeouts is waited for")
    func slowButInTime() async throws {
        try await withLoopbackServer { server in
            let pipeline = Self.pipeline(network: NetworkSettings(readTimeout: .seconds(5), totalTimeout: .seconds(10)))
            let result = try await pipeline.crop(.url(server.url("/slow/0.3/astronaut.png")), to: Self.square)
            #expect(result.plan.strategy == .faces)
        }
    }

    @Test("cancelling a crop whose server is slow throws CancellationError promptly")
    func cancelled() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/slow/20/astronaut.png")
            let pipeline = Self.pipeline()
            let start = ContinuousClock.now
            let task = Task { try await pipeline.crop(.url(url), to: Self.square) }
            let arrived = try await Self.eventually(within: Self.prompt) { server.hits("/slow/20/astronaut.png") == 1 }
            #expect(arrived)
            task.cancel()
            let outcome = await task.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            #expect(ContinuousClock.now - start < Self.prompt, "waited for the server instead of stopping")
        }
    }

    // MARK: - Byte limits

    @Test("an endless body is abandoned at the byte limit with .fetchTooLarge, and the connection is closed")
    func endlessBody() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/endless-jpeg")
            let pipeline = Self.pipeline(limits: ImageLimits(maxInputBytes: 1 << 20))
            let (error, elapsed, other) = await Self.timed(FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
            #expect(other == nil, "\(String(describing: other))")
            let fetch = try #require(error)
            #expect(fetch.code == .fetchTooLarge)
            #expect(Self.names(fetch, url), "\(fetch)")
            #expect(elapsed < Self.prompt, "took \(elapsed)")
            // The client hung up: the server's writes fail and its stream stops by itself.
            let ended = try await Self.eventually(within: Self.prompt) { server.endlessStreamsEnded == 1 }
            #expect(ended, "the server is still streaming after \(server.endlessBytesSent) bytes: the connection was left open")
        }
    }

    @Test("a declared Content-Length over the limit gives .fetchTooLarge at once, before any body arrives")
    func declaredTooLarge() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/declared-huge")
            let pipeline = Self.pipeline(limits: ImageLimits(maxInputBytes: 1 << 20))
            let (error, elapsed, other) = await Self.timed(FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
            #expect(other == nil, "\(String(describing: other))")
            let fetch = try #require(error)
            #expect(fetch.code == .fetchTooLarge)
            #expect(Self.names(fetch, url), "\(fetch)")
            #expect(elapsed < Self.prompt, "took \(elapsed)")
        }
    }

    @Test("the byte limit is exact, with or without a Content-Length", arguments: ["/image/", "/chunked/"])
    func exactLimit(route: String) async throws {
        try await withLoopbackServer { server in
            let size = try LoopbackServer.fixture("grace_hopper.jpg").count
            let url = server.url(route + "grace_hopper.jpg")
            let fits = try await Self.pipeline(limits: ImageLimits(maxInputBytes: size)).crop(.url(url), to: Self.square)
            #expect(fits.plan.imageSize == PixelSize(width: 512, height: 600))
            let error = try #require(await #expect(throws: FetchError.self) {
                try await Self.pipeline(limits: ImageLimits(maxInputBytes: size - 1)).crop(.url(url), to: Self.square)
            })
            #expect(error.code == .fetchTooLarge)
            #expect(Self.names(error, url), "\(error)")
        }
    }

    // MARK: - Redirects

    @Test("a redirect loop gives .fetchRedirects as soon as it comes back")
    func redirectLoop() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/loop-a")
            let error = try #require(await #expect(throws: FetchError.self) {
                try await Self.pipeline(network: NetworkSettings(maxRedirects: 20)).crop(.url(url), to: Self.square)
            })
            #expect(error.code == .fetchRedirects)
            #expect(Self.names(error, url), "\(error)")
            #expect(server.hits("/loop-a") == 1 && server.hits("/loop-b") == 1, "the loop is refused once it comes back")
        }
    }

    @Test("a chain of more redirects than allowed gives .fetchRedirects; up to the limit is followed")
    func redirectChain() async throws {
        try await withLoopbackServer { server in
            let pipeline = Self.pipeline(network: NetworkSettings(maxRedirects: 3))
            let long = server.url("/hop/4/astronaut.png")
            let error = try #require(await #expect(throws: FetchError.self) { try await pipeline.crop(.url(long), to: Self.square) })
            #expect(error.code == .fetchRedirects)
            #expect(Self.names(error, long), "\(error)")
            // Three redirects were followed (to /hop/3, /hop/2, /hop/1); the fourth was refused.
            #expect(server.hits("/hop/1/astronaut.png") == 1)
            #expect(server.hits("/image/astronaut.png") == 0)

            for hops in [1, 3] {
                let result = try await pipeline.crop(.url(server.url("/hop/\(hops)/astronaut.png")), to: Self.square)
                #expect(result.plan.strategy == .faces)
                #expect(result.plan.imageSize == PixelSize(width: 512, height: 512))
            }
            #expect(server.hits("/image/astronaut.png") == 2)
            #expect(server.hits("/hop/3/astronaut.png") == 2, "once in the refused chain, once in the last")
        }
    }

    @Test("with maxRedirects 0 a redirect is refused as .fetchRedirects")
    func noRedirects() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/hop/1/astronaut.png")
            let error = try #require(await #expect(throws: FetchError.self) {
                try await Self.pipeline(network: NetworkSettings(maxRedirects: 0)).crop(.url(url), to: Self.square)
            })
            #expect(error.code == .fetchRedirects, "\(error)")
            #expect(Self.names(error, url), "\(error)")
            #expect(server.hits("/image/astronaut.png") == 0)
        }
    }

    // MARK: - Statuses and content

    @Test("an HTTP error status gives .fetchStatus with that status", arguments: [404, 500])
    func httpStatus(code: Int) async throws {
        try await withLoopbackServer { server in
            let url = server.url("/status/\(code)")
            let error = try #require(await #expect(throws: FetchError.self) { try await Self.pipeline().crop(.url(url), to: Self.square) })
            #expect(error.code == .fetchStatus)
            #expect(error.status == code)
            #expect(Self.names(error, url), "\(error)")
            #expect(error.message.contains("\(code)"))
        }
    }

    @Test("an HTML page labelled image/jpeg gives .fetchNotAnImage: the bytes decide")
    func htmlAsJPEG() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/html-as-jpeg")
            let error = try #require(await #expect(throws: FetchError.self) { try await Self.pipeline().crop(.url(url), to: Self.square) })
            #expect(error.code == .fetchNotAnImage)
            #expect(Self.names(error, url), "\(error)")
            #expect(error.message.contains("HTML"), "\(error)")
        }
    }

    @Test("an endless HTML body is refused from its first bytes, not read to the limit")
    func endlessHTML() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/endless-html")
            let (error, elapsed, other) = await Self.timed(FetchError.self) { try await Self.pipeline().crop(.url(url), to: Self.square) }
            #expect(other == nil, "\(String(describing: other))")
            let fetch = try #require(error)
            #expect(fetch.code == .fetchNotAnImage)
            #expect(Self.names(fetch, url), "\(fetch)")
            #expect(elapsed < Self.prompt, "took \(elapsed)")
            let ended = try await Self.eventually(within: Self.prompt) { server.endlessStreamsEnded == 1 }
            #expect(ended, "the connection was left open")
        }
    }

    @Test("a real JPEG labelled text/plain is accepted: the bytes decide")
    func jpegAsText() async throws {
        try await withLoopbackServer { server in
            let result = try await Self.pipeline().crop(.url(server.url("/as-text/grace_hopper.jpg")), to: Self.square)
            #expect(result.plan.strategy == .faces)
            #expect(result.format == .jpeg)
        }
    }

    @Test("a truncated download gives ImagingError .inputCorrupt naming the URL", arguments: [
        ("grace_hopper.jpg", true), ("grace_hopper.jpg", false), ("astronaut.png", true), ("astronaut.png", false),
    ])
    func truncated(name: String, detect: Bool) async throws {
        try await withLoopbackServer { server in
            let url = server.url("/truncated/\(name)")
            var options = FocalOptions()
            options.crop.detect = detect
            let error = try #require(await #expect(throws: ImagingError.self) {
                try await Self.pipeline().crop(.url(url), to: Self.square, options: options)
            })
            #expect(error.code == .inputCorrupt, "\(error)")
            #expect(error.source == url.absoluteString)
            #expect(Self.names(error, url), "\(error)")
        }
    }

    // MARK: - Connection failures and messages

    @Test("a refused connection gives .fetchConnection naming the URL")
    func refused() async throws {
        let port = try RefusingPort()
        defer { port.close() }
        let url = URL(string: "http://127.0.0.1:\(port.port)/astronaut.png")!
        // AsyncHTTPClient retries a refused connection until the connect timeout; keep it short.
        let pipeline = Self.pipeline(network: NetworkSettings(connectTimeout: .seconds(1)))
        let error = try #require(await #expect(throws: FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) })
        #expect(error.code == .fetchConnection, "\(error)")
        #expect(Self.names(error, url), "\(error)")
    }

    @Test("a refused connection fails at once as .fetchConnection, not after the connect or total timeout")
    func refusedAtOnce() async throws {
        let port = try RefusingPort()
        defer { port.close() }
        let url = URL(string: "http://127.0.0.1:\(port.port)/astronaut.png")!
        let pipeline = Self.pipeline(network: NetworkSettings(connectTimeout: .seconds(5), totalTimeout: .seconds(2)))
        let (error, elapsed, other) = await Self.timed(FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
        #expect(other == nil, "\(String(describing: other))")
        let fetch = try #require(error)
        #expect(fetch.code == .fetchConnection, "\(fetch)")
        #expect(Self.names(fetch, url), "\(fetch)")
        #expect(elapsed < .milliseconds(1500), "took \(elapsed)")
    }

    @Test("a stopped server refuses the next request with .fetchConnection")
    func stoppedServer() async throws {
        let server = try await LoopbackServer.start()
        let url = server.url("/image/astronaut.png")
        // The same settings share one client, whose kept-alive connection the server has now closed.
        let network = NetworkSettings(connectTimeout: .seconds(1))
        _ = try await Self.pipeline(network: network).crop(.url(url), to: Self.square)
        await server.stop()
        let error = try #require(await #expect(throws: FetchError.self) {
            try await Self.pipeline(network: network).crop(.url(url), to: Self.square)
        })
        #expect(error.code == .fetchConnection, "\(error)")
        #expect(Self.names(error, url), "\(error)")
    }

    @Test("every kind of fetch failure names the URL in its description")
    func messagesNameTheURL() async throws {
        let port = try RefusingPort()
        defer { port.close() }
        try await withLoopbackServer { server in
            let network = NetworkSettings(connectTimeout: .seconds(1), maxRedirects: 2)
            let pipeline = Self.pipeline(limits: ImageLimits(maxInputBytes: 1 << 20), network: network)
            let impatient = Self.pipeline(network: NetworkSettings(totalTimeout: .milliseconds(500)))
            let cases: [(URL, ErrorCode, FocalPipeline)] = [
                (URL(string: "ftp://127.0.0.1/astronaut.png")!, .fetchInvalidURL, pipeline),
                (URL(string: "http://127.0.0.1:\(port.port)/x.png")!, .fetchConnection, pipeline),
                (server.url("/slow/20/astronaut.png"), .fetchTimeout, impatient),
                (server.url("/endless-jpeg"), .fetchTooLarge, pipeline),
                (server.url("/declared-huge"), .fetchTooLarge, pipeline),
                (server.url("/loop-a"), .fetchRedirects, pipeline),
                (server.url("/hop/3/astronaut.png"), .fetchRedirects, pipeline),
                (server.url("/status/404"), .fetchStatus, pipeline),
                (server.url("/html-as-jpeg"), .fetchNotAnImage, pipeline),
            ]
            for (url, code, pipeline) in cases {
                let error = await #expect(throws: FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) }
                #expect(error?.code == code, "\(url): \(String(describing: error))")
                if let error { #expect(Self.names(error, url), "\(error)") }
            }
            let truncated = server.url("/truncated/grace_hopper.jpg")
            let error = await #expect(throws: ImagingError.self) { try await pipeline.crop(.url(truncated), to: Self.square) }
            if let error { #expect(Self.names(error, truncated), "\(error)") }
        }
    }

    // MARK: - Caches

    @Test("with a cache name the second crop comes from memory without downloading")
    func cacheName() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/astronaut.png")
            let pipeline = Self.pipeline()
            let first = try await pipeline.crop(.url(url, cacheName: "astronaut-v1"), to: Self.square)
            let second = try await pipeline.crop(.url(url, cacheName: "astronaut-v1"), to: Self.square)
            #expect(first.origin == .fresh)
            #expect(second.origin == .memoryCache)
            #expect(second.plan == first.plan)
            #expect(second.data == first.data)
            #expect(pipeline.statistics.downloads == 1)
            #expect(server.hits("/image/astronaut.png") == 1)
        }
    }

    @Test("without a cache name the URL is fetched again, then answered from memory by content")
    func cacheByContent() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/astronaut.png")
            let pipeline = Self.pipeline()
            let first = try await pipeline.crop(.url(url), to: Self.square)
            let second = try await pipeline.crop(.url(url), to: Self.square)
            #expect(first.origin == .fresh)
            #expect(second.origin == .memoryCache)
            #expect(second.plan == first.plan)
            let statistics = pipeline.statistics
            #expect(statistics.downloads == 2)
            #expect(statistics.detections == 1)
            #expect(statistics.renders == 1)
            #expect(server.hits("/image/astronaut.png") == 2)
            // The same bytes at another address are the same content.
            let elsewhere = try await pipeline.crop(.url(server.url("/as-text/astronaut.png")), to: Self.square)
            #expect(elsewhere.origin == .memoryCache)
            #expect(pipeline.statistics.detections == 1)
        }
    }

    @Test("identical requests at once share one download")
    func sharedDownload() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/slow/0.5/grace_hopper.jpg")
            let pipeline = Self.pipeline()
            let plans = try await withThrowingTaskGroup(of: CropPlan.self) { group in
                for _ in 0..<6 { group.addTask { try await pipeline.crop(.url(url), to: Self.square).plan } }
                return try await group.reduce(into: [CropPlan]()) { $0.append($1) }
            }
            #expect(plans.count == 6)
            #expect(Set(plans).count == 1)
            #expect(server.hits("/slow/0.5/grace_hopper.jpg") == 1)
            #expect(pipeline.statistics.downloads == 1)
        }
    }

    // MARK: - Fallbacks

    @Test("a placeholder stands in for a 404, cropped to the target")
    func placeholder() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/status/404")
            let png = try LoopbackServer.fixture("coffee.png")
            let pipeline = Self.pipeline()
            let result = try await pipeline.crop(.url(url), to: Self.square, options: FocalOptions(fallback: .placeholder(png)))
            guard case let .placeholder(reason) = result.origin else {
                Issue.record("origin is \(result.origin), not a placeholder")
                return
            }
            #expect(reason.contains(url.absoluteString), "\(reason)")
            #expect(result.plan.strategy == .center)
            #expect(result.detected.isEmpty)
            let decoded = try SourceImage.open(data: result.data)
            #expect(decoded.size == PixelSize(width: 400, height: 400))
            #expect(decoded.format == "png")
            #expect(pipeline.statistics.fallbacks == 1)

            // The same failure with the default fallback is thrown.
            let error = try #require(await #expect(throws: FetchError.self) { try await pipeline.crop(.url(url), to: Self.square) })
            #expect(error.status == 404)
            // A centre-crop fallback covers detection only: a fetch failure is still thrown.
            await #expect(throws: FetchError.self) {
                try await pipeline.crop(.url(url), to: Self.square, options: FocalOptions(fallback: .centerCrop))
            }
        }
    }

    @Test("a URL image whose detection fails gives a centre crop with .centerCrop, and throws with .error")
    func centerCropFallback() async throws {
        let emptyModels = try Scratch()
        defer { emptyModels.remove() }
        try await withLoopbackServer { server in
            let url = server.url("/image/grace_hopper.jpg")
            let pipeline = Self.pipeline(modelsPath: emptyModels.path)
            let result = try await pipeline.crop(.url(url), to: .aspect(width: 1, height: 1), options: FocalOptions(fallback: .centerCrop))
            guard case .centerCropFallback = result.origin else {
                Issue.record("origin is \(result.origin), not a centre-crop fallback")
                return
            }
            #expect(result.plan.strategy == .center)
            #expect(result.plan.crop == PixelRect(x: 0, y: 44, width: 512, height: 512))
            #expect(result.detected.isEmpty)
            let decoded = try SourceImage.open(data: result.data)
            #expect(decoded.size == PixelSize(width: 512, height: 512))

            await #expect(throws: DetectionError.self) {
                try await pipeline.crop(.url(url), to: .aspect(width: 1, height: 1), options: FocalOptions(fallback: .error))
            }
            // Fallbacks are not cached: the next request with .centerCrop tries again.
            let again = try await pipeline.crop(.url(url), to: .aspect(width: 1, height: 1), options: FocalOptions(fallback: .centerCrop))
            #expect(again.origin.name == "center-fallback")
        }
    }

    // MARK: - Command line

    @Test("focal crop URL --json prints what the same file gives; a 404 prints {input, error} naming the URL and exits 1")
    func commandLine() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/astronaut.png").absoluteString
            let remote = try await Run(["crop", url, "--aspect", "16:9", "--json"])
            #expect(remote.status == 0, "\(remote.stderr)")
            let local = try await Run(["crop", Checkout.fixture("astronaut.png"), "--aspect", "16:9", "--json"])
            #expect(local.status == 0, "\(local.stderr)")
            let r = try #require(remote.objects.first), l = try #require(local.objects.first)
            #expect(remote.objects.count == 1)
            #expect(r["input"] as? String == url)
            for key in ["width", "height"] { #expect(r[key] as? Int == l[key] as? Int, "\(key)") }
            #expect(r["crop"] as? [String: Int] == l["crop"] as? [String: Int])
            #expect(r["strategy"] as? String == "faces")
            #expect(r["strategy"] as? String == l["strategy"] as? String)
            #expect(NSDictionary(dictionary: r["region"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: l["region"] as? [String: Any] ?? [:]))
            #expect(NSArray(array: r["subjects"] as? [Any] ?? []) == NSArray(array: l["subjects"] as? [Any] ?? []))
            #expect((r["subjects"] as? [Any])?.isEmpty == false)
            #expect(server.hits("/image/astronaut.png") == 1)

            let missing = server.url("/status/404").absoluteString
            let failed = try await Run(["crop", missing, "--size", "400x400", "--json"])
            #expect(failed.status == 1)
            let line = try #require(failed.objects.first)
            #expect(line["input"] as? String == missing)
            let message = try #require(line["error"] as? String)
            #expect(message.contains(missing), "\(message)")
            #expect(message.contains("404"), "\(message)")
        }
    }
}
