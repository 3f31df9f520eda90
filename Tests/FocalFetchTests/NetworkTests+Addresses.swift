import Focal
import Foundation
import FocalTestSupport
import Testing

/// The SSRF guard against real servers on loopback: the address policy before connecting (IP
/// literals in every spelling, and every address a host name resolves to), on every redirect;
/// and the allow-list of sources on every redirect. See also NetworkTests+Resolution.swift.
extension NetworkTests {
    /// A URL from text the test wrote.
    static func url(_ text: String) throws -> URL {
        try #require(URL(string: text), "\(text) is not a URL")
    }

    /// Runs a crop of `url` with `pipeline` that must fail promptly with a `FetchError` of `code`
    /// naming `url`; returns the error.
    static func refusal(_ url: URL, _ code: ErrorCode, pipeline: FocalPipeline) async throws -> FetchError {
        try await promptRefusal(url, code) { _ = try await pipeline.crop(.url(url), to: square) }
    }

    /// Runs `work`, which must fail promptly with a `FetchError` of `code` naming `url`; returns
    /// the error.
    static func promptRefusal(
        _ url: URL, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ work: () async throws -> Void
    ) async throws -> FetchError {
        let (error, elapsed, other) = await timed(FetchError.self) { try await work() }
        #expect(other == nil, "\(String(describing: other))", sourceLocation: sourceLocation)
        let fetch = try #require(error, sourceLocation: sourceLocation)
        #expect(fetch.code == code, "\(fetch)", sourceLocation: sourceLocation)
        #expect(names(fetch, url), "\(fetch)", sourceLocation: sourceLocation)
        #expect(elapsed < prompt, "took \(elapsed)", sourceLocation: sourceLocation)
        return fetch
    }

    // MARK: - The address policy

    @Test("by default a loopback URL is refused with .fetchAddressRefused before connecting; allowing 127.0.0.1 fetches it")
    func loopbackRefusedByDefault() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/astronaut.png")
            let error = try await Self.refusal(url, .fetchAddressRefused, pipeline: Self.pipeline(allowLoopback: false))
            #expect(error.message.contains("127.0.0.1 is a loopback address"), "\(error)")
            #expect(!error.publicMessage.contains("127.0.0.1"), "\(error.publicMessage)")
            #expect(server.hits("/image/astronaut.png") == 0)

            let allowed = try await Self.pipeline().crop(.url(url), to: Self.square)
            #expect(allowed.plan.strategy == .faces)
            #expect(server.hits("/image/astronaut.png") == 1)
        }
    }

    @Test("a host name that resolves to loopback is refused before connecting; allowed when configured")
    func hostNameRefusedBeforeConnecting() async throws {
        try await withLoopbackServer { server in
            let url = try Self.url("http://localhost:\(server.port)/image/astronaut.png")
            let pipeline = Self.pipeline(allowLoopback: false)
            // Twice with the same pipeline: a refusal leaves it able to refuse the next.
            for _ in 0..<2 {
                let error = try await Self.refusal(url, .fetchAddressRefused, pipeline: pipeline)
                #expect(error.message.contains("127.0.0.1 is a loopback address"), "\(error)")
                #expect(!error.publicMessage.contains("127.0.0.1") && !error.publicMessage.contains("localhost"))
            }
            #expect(server.hits("/image/astronaut.png") == 0, "the request reached the server")

            let allowed = try await Self.pipeline().crop(.url(url), to: Self.square)
            #expect(allowed.plan.strategy == .faces)
            #expect(server.hits("/image/astronaut.png") == 1)
        }
    }

    @Test("every spelling of a special address in a URL is refused before connecting", arguments: [
        "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[::127.0.0.1]", "[2002:7f00:1::]", "[64:ff9b::127.0.0.1]", "[::1]", "[::]",
        "127.1", "2130706433", "0x7f.0.0.1", "0177.0.0.1", "127.0.0.1.", "0.0.0.0", "0", "10.0.0.1", "172.16.0.1",
        "192.168.1.1", "100.64.0.1", "169.254.169.254", "[fe80::1]", "[fd00::1]", "224.0.0.1", "255.255.255.255",
    ])
    func literalSpellings(host: String) async throws {
        try await withLoopbackServer { server in
            let url = try Self.url("http://\(host):\(server.port)/image/astronaut.png")
            let error = try await Self.refusal(url, .fetchAddressRefused, pipeline: Self.pipeline(allowLoopback: false))
            #expect(error.message.contains("the address policy does not allow it"), "\(error)")
            #expect(server.hits("/image/astronaut.png") == 0)
        }
    }

    @Test("a redirect from an allowed host to 127.0.0.1, by address or by name, is refused and never reaches it")
    func redirectToLoopback() async throws {
        try await withLoopbackServer(host: "127.0.0.2") { front in
            try await withLoopbackServer { inner in
                let policy = AddressPolicy(allowedNetworks: [IPNetwork(IPAddress(127, 0, 0, 2))])
                let pipeline = Self.pipeline(network: NetworkSettings(addressPolicy: policy), allowLoopback: false)
                let direct = try await pipeline.crop(.url(front.url("/image/astronaut.png")), to: Self.square)
                #expect(direct.plan.strategy == .faces, "127.0.0.2 is allowed")

                let targets = [inner.url("/image/astronaut.png"), try Self.url("http://localhost:\(inner.port)/image/astronaut.png")]
                for target in targets {
                    let url = front.redirect(to: target)
                    let error = try await Self.refusal(url, .fetchAddressRefused, pipeline: pipeline)
                    #expect(error.message.contains("redirects to \(target.absoluteString)"), "\(error)")
                    #expect(error.message.contains("127.0.0.1 is a loopback address"), "\(error)")
                }
                #expect(front.hits("/redirect-to") == 2)
                #expect(inner.hits("/image/astronaut.png") == 0, "a refused redirect reached its target")

                // With 127.0.0.1 allowed too, the same redirect is followed.
                let both = Self.pipeline(network: NetworkSettings(addressPolicy: policy))
                let followed = try await both.crop(.url(front.redirect(to: inner.url("/image/astronaut.png"))), to: Self.square)
                #expect(followed.plan == direct.plan)
                #expect(inner.hits("/image/astronaut.png") == 1)
            }
        }
    }

    @Test("a port outside 1...65535, asked for or redirected to, is .fetchInvalidURL, not a crash", arguments: [
        "http://127.0.0.1:99999/a.png", "http://127.0.0.1:65536/a.png", "http://127.0.0.1:0/a.png", "http://[::1]:4294967297/a.png",
    ])
    func portOutOfRange(text: String) async throws {
        let url = try Self.url(text)
        _ = try await Self.refusal(url, .fetchInvalidURL, pipeline: Self.pipeline())
        try await withLoopbackServer { server in
            let redirect = server.redirect(to: url)
            let error = try await Self.refusal(redirect, .fetchInvalidURL, pipeline: Self.pipeline())
            #expect(error.message.contains("redirects to \(url.absoluteString)"), "\(error)")
        }
    }

    // MARK: - The allow-list of sources

    @Test("a host allow-list fetches its host, and refuses other hosts and redirects leaving it with .fetchNotAllowed")
    func hostAllowList() async throws {
        try await withLoopbackServer(host: "127.0.0.2") { front in
            try await withLoopbackServer { inner in
                let network = NetworkSettings(allowedSources: try SourceAllowList(["127.0.0.2"]), addressPolicy: .allowAll)
                let pipeline = Self.pipeline(network: network)
                let allowed = try await pipeline.crop(.url(front.url("/image/astronaut.png")), to: Self.square)
                #expect(allowed.plan.strategy == .faces)
                let followed = try await pipeline.crop(.url(front.redirect(to: front.url("/image/grace_hopper.jpg"))), to: Self.square)
                #expect(followed.plan.strategy == .faces, "a redirect within the list is followed")

                let target = inner.url("/image/astronaut.png")
                let error = try await Self.refusal(front.redirect(to: target), .fetchNotAllowed, pipeline: pipeline)
                #expect(error.message.contains("redirects to \(target.absoluteString)"), "\(error)")
                #expect(!error.publicMessage.contains("127.0.0"), "\(error.publicMessage)")
                _ = try await Self.refusal(target, .fetchNotAllowed, pipeline: pipeline)
                _ = try await Self.refusal(try Self.url("http://localhost:\(front.port)/image/astronaut.png"), .fetchNotAllowed, pipeline: pipeline)
                #expect(inner.hits("/image/astronaut.png") == 0)
                #expect(front.hits("/image/astronaut.png") == 1)
            }
        }
    }

    @Test("a URL-prefix allow-list checks each redirect's path as well as its host")
    func prefixAllowList() async throws {
        try await withLoopbackServer { server in
            let base = server.base.absoluteString
            let network = NetworkSettings(allowedSources: try SourceAllowList([base + "/image/", base + "/redirect-to"]))
            let pipeline = Self.pipeline(network: network)
            let inside = try await pipeline.crop(.url(server.redirect(to: server.url("/image/astronaut.png"))), to: Self.square)
            #expect(inside.plan.strategy == .faces)

            let outside = server.url("/chunked/astronaut.png")
            let error = try await Self.refusal(server.redirect(to: outside), .fetchNotAllowed, pipeline: pipeline)
            #expect(error.message.contains("redirects to \(outside.absoluteString)"), "\(error)")
            _ = try await Self.refusal(server.url("/hop/1/astronaut.png"), .fetchNotAllowed, pipeline: pipeline)
            _ = try await Self.refusal(server.url("/image/../chunked/astronaut.png"), .fetchNotAllowed, pipeline: pipeline)
            #expect(server.hits("/chunked/astronaut.png") == 0)
            #expect(server.hits("/hop/1/astronaut.png") == 0)
        }
    }

    // MARK: - Command line

    @Test("focal crop fetches loopback by default; --public-only refuses it; --allow-source limits hosts; a bad pattern exits 64")
    func commandLineAddresses() async throws {
        try await withLoopbackServer { server in
            let url = server.url("/image/astronaut.png").absoluteString
            let open = try await Run(["crop", url, "--size", "64x64", "--json"])
            #expect(open.status == 0, "\(open.stderr)")

            let strict = try await Run(["crop", url, "--size", "64x64", "--json", "--public-only"])
            #expect(strict.status == 1)
            let refused = try #require(strict.objects.first?["error"] as? String)
            #expect(refused.contains(url) && refused.contains("loopback"), "\(refused)")

            let listed = try await Run(["crop", url, "--size", "64x64", "--json", "--allow-source", "images.example.com"])
            #expect(listed.status == 1)
            let notAllowed = try #require(listed.objects.first?["error"] as? String)
            #expect(notAllowed.contains("allowed sources"), "\(notAllowed)")
            #expect(server.hits("/image/astronaut.png") == 1)

            let allowed = try await Run(["crop", url, "--size", "64x64", "--json", "--allow-source", "127.0.0.1"])
            #expect(allowed.status == 0, "\(allowed.stderr)")

            let bad = try await Run(["crop", url, "--size", "64x64", "--allow-source", "exa mple.com"])
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("--allow-source"), "\(bad.stderr)")
        }
    }
}
