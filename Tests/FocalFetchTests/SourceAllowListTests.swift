import FocalCore
import FocalFetch
import Foundation
import Testing

/// The SSRF guard's URL side, without a network: host patterns, subdomain patterns and URL
/// prefixes, and the tricks that make a URL look like another.
@Suite("Allowed sources: host patterns and URL prefixes")
struct SourceAllowListTests {
    static func allows(_ patterns: [String], _ url: String) throws -> Bool {
        try SourceAllowList(patterns).allows(try #require(URL(string: url), "\(url) is not a URL"))
    }

    @Test("an empty list allows every URL")
    func empty() throws {
        #expect(SourceAllowList().isEmpty)
        #expect(NetworkSettings().allowedSources.isEmpty)
        #expect(try Self.allows([], "http://anything.example/x.jpg"))
    }

    @Test("a host pattern matches that host, any scheme, port and path, case and trailing dot aside", arguments: [
        ("http://example.com/x.jpg", true), ("https://EXAMPLE.com./y/z.png", true), ("http://example.com:8080/", true),
        ("http://a.example.com/", false), ("http://example.com.evil.net/", false), ("http://evilexample.com/", false),
        ("http://example.co/", false), ("http://example.com@evil.net/", false), ("http://evil.net/?example.com", false),
        ("http://evil.net/#example.com", false), ("http://evil.net/example.com", false),
    ])
    func host(url: String, allowed: Bool) throws {
        #expect(try Self.allows(["example.com"], url) == allowed)
    }

    @Test("*.domain matches subdomains at any depth, not the domain itself", arguments: [
        ("https://a.example.com/x.jpg", true), ("https://a.b.example.com/x.jpg", true), ("https://A.Example.COM/", true),
        ("https://example.com/x.jpg", false), ("https://evil-example.com/", false), ("https://a.example.com.evil.net/", false),
        ("https://aexample.com/", false),
    ])
    func subdomains(url: String, allowed: Bool) throws {
        #expect(try Self.allows(["*.example.com"], url) == allowed)
        #expect(try Self.allows(["*.example.com", "example.com"], url) == (allowed || url.contains("//example.com/")))
    }

    @Test("an address pattern matches the address in any spelling of it")
    func addresses() throws {
        #expect(try Self.allows(["127.0.0.1"], "http://127.0.0.1:8080/a.jpg"))
        #expect(try Self.allows(["127.0.0.1"], "http://127.1/a.jpg"))
        #expect(try Self.allows(["127.0.0.1"], "http://2130706433/a.jpg"))
        #expect(try !Self.allows(["127.0.0.1"], "http://127.0.0.2/a.jpg"))
        #expect(try Self.allows(["[2001:db8::7]"], "http://[2001:DB8:0::7]/a.jpg"))
        #expect(try Self.allows(["2001:db8::7"], "http://[2001:db8::7]:81/a.jpg"))
        #expect(throws: SettingError.self, "a subdomain pattern of an address") { try SourceAllowList(["*.0.0.1"]) }
    }

    @Test("a folder prefix matches its scheme, host, port and the paths under it", arguments: [
        ("https://cdn.example.com/img/a.jpg", true), ("https://cdn.example.com:443/img/a.jpg", true),
        ("https://CDN.example.com/img/sub/b.png?size=2", true), ("https://cdn.example.com/img/", true),
        ("https://cdn.example.com/img/caf%C3%A9.jpg", true), ("https://cdn.example.com/img/a%20b.jpg", true),
        ("https://cdn.example.com/img%2Fa.jpg", false),
        ("http://cdn.example.com/img/a.jpg", false), ("https://cdn.example.com:8443/img/a.jpg", false),
        ("https://cdn.example.com/images/a.jpg", false), ("https://cdn.example.com/img", false),
        ("https://cdn.example.com/IMG/a.jpg", false), ("https://cdn.example.com/other/img/a.jpg", false),
        ("https://cdn.example.com/img/../secret.jpg", false), ("https://cdn.example.com/img/%2e%2e/secret.jpg", false),
        ("https://cdn.example.com/img/..%2Fsecret.jpg", false), ("https://cdn.example.com/img/%2E%2E%2Fsecret.jpg", false),
        ("https://cdn.example.com/img/..%5Csecret.jpg", false), ("https://cdn.example.com/img/./a.jpg", false),
        ("https://cdn.example.com.evil.net/img/a.jpg", false), ("https://cdn.example.com@evil.net/img/a.jpg", false),
        ("https://evil.net/https://cdn.example.com/img/a.jpg", false),
    ])
    func folderPrefix(url: String, allowed: Bool) throws {
        #expect(try Self.allows(["https://cdn.example.com/img/"], url) == allowed)
    }

    @Test("a prefix without a trailing slash matches that path and the folder of that name, not longer names", arguments: [
        ("http://example.com/img", true), ("http://example.com/img/a.jpg", true), ("http://example.com:80/img/a.jpg", true),
        ("http://example.com/images/a.jpg", false), ("http://example.com/img.jpg", false), ("http://example.com/", false),
    ])
    func pathPrefix(url: String, allowed: Bool) throws {
        #expect(try Self.allows(["http://example.com/img"], url) == allowed)
    }

    @Test("a prefix of a whole site, and one with a port", arguments: [
        ("https://example.com", "https://example.com/any/thing.jpg", true),
        ("https://example.com/", "https://example.com/any/thing.jpg", true),
        ("http://example.com:8080/", "http://example.com:8080/a.jpg", true),
        ("http://example.com:8080/", "http://example.com/a.jpg", false),
        ("http://example.com/", "http://example.com:8080/a.jpg", false),
    ])
    func sitePrefix(pattern: String, url: String, allowed: Bool) throws {
        #expect(try Self.allows([pattern], url) == allowed)
    }

    @Test("patterns that are not hosts or prefixes throw, naming the text", arguments: [
        "", "*", "*.", "*.*.com", "a*.example.com", "example.com/img", "exa mple.com", "example..com", "ftp://example.com/",
        "https://", "https:///img/", "https://example.com/img/?q=1", "https://example.com/img/#top",
        "https://user@example.com/", "https://user:pw@example.com/", "https://example.com:99999/", "https://example.com/a/../b/",
        "example.com:8080", "[::1", "*.127.0.0.1", String(repeating: "a", count: 64) + ".com",
    ])
    func malformed(pattern: String) {
        let error = #expect(throws: SettingError.self) { try SourceAllowList([pattern]) }
        #expect(error?.value == pattern)
        #expect(error?.code == .requestInvalid)
    }

    @Test("several patterns: a URL passes when one matches")
    func several() throws {
        let list = try SourceAllowList(["images.example.com", "*.cdn.example.net", "https://static.example.org/avatars/"])
        #expect(list.patterns.count == 3)
        #expect(list.description == "images.example.com, *.cdn.example.net, https://static.example.org/avatars/")
        for (url, allowed) in [
            ("http://images.example.com/a.jpg", true), ("https://eu.cdn.example.net/a.jpg", true),
            ("https://static.example.org/avatars/42.png", true), ("https://static.example.org/private/42.png", false),
            ("https://example.com/a.jpg", false),
        ] {
            #expect(list.allows(try #require(URL(string: url))) == allowed, "\(url)")
        }
    }
}
