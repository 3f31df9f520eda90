import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Image URLs in thumbor's grammar, against the router: sizes, types, validators, caching
/// headers, and every refusal with its status and JSON code.
@Suite struct ImageRouteTests {
    @Test func smartCropHasTheRequestedSizeAndHeaders() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/400x300/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png", "the astronaut is a PNG, so the output is too")
                #expect(response.imageSize == PixelSize(width: 400, height: 300))
                #expect(response.headers[.cacheControl] == "public, max-age=0, must-revalidate, s-maxage=86400",
                        "a smart crop may change when a crop is saved: browsers revalidate")
                #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
                #expect(response.headers[HTTPField.Name("X-Focal-Strategy")!] == "faces")
                #expect(response.headers[.vary] == nil, "no format negotiation without format(auto), --auto-format or --auto-webp")
                #expect(response.headers[HTTPField.Name("xkey")!] == "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5")
            }
        }
    }

    /// The content type follows the encoded bytes, whatever the URL's file name says.
    @Test(arguments: [
        ("jpeg", [UInt8]([0xFF, 0xD8, 0xFF]), 0), ("png", [0x89, 0x50, 0x4E, 0x47], 0), ("webp", Array("RIFF".utf8), 0),
        ("avif", Array("ftypavif".utf8), 4),
    ])
    func formatFilterAndContentType(_ format: String, _ magic: [UInt8], _ at: Int) async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/120x80/filters:format(\(format))/grace_hopper.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/\(format)")
                #expect(Array(response.data.dropFirst(at).prefix(magic.count)) == magic)
                #expect(response.imageSize == PixelSize(width: 120, height: 80))
            }
        }
    }

    @Test func signedURLsWithEveryKeyAndNotOthers() async throws {
        try await withServer({ $0.allowUnsafe = false }) { client in
            let path = "200x200/smart/chelsea.png"
            for key in TestSecrets.keys {
                try await client.execute(uri: signed(path, key: key), method: .get) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: signed(path, key: "wrong"), method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(response.json?["code"] as? String == "request.bad_signature")
                #expect(response.json?["status"] as? Int == 403)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            try await client.execute(uri: "/unsafe/" + path, method: .get) { response in
                #expect(response.status == .forbidden)
                #expect(response.json?["code"] as? String == "request.unsafe_refused")
            }
        }
    }

    @Test func plainCropsAreCachedForTheMaxAge() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get) {
                #expect($0.headers[.cacheControl] == "public, max-age=86400")
            }
            try await client.execute(uri: "/favicon.ico", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// Pages may measure the images (Resource Timing, LCP): `Timing-Allow-Origin: *` by default,
    /// the configured origins, or none; a value that is not an origin stops the start.
    @Test func timingAllowOriginAsConfigured() async throws {
        let name = HTTPField.Name("Timing-Allow-Origin")!
        try await withServer { client in
            try await client.execute(uri: "/unsafe/100x100/smart/grace_hopper.jpg", method: .get) {
                #expect($0.status == .ok)
                #expect($0.headers[name] == "*")
            }
        }
        let sites = try ServerConfiguration(flags: ["timing-allow-origin": [" https://a.example , http://localhost:8080"]], environment: [:])
        #expect(sites.timingAllowOrigin == "https://a.example, http://localhost:8080")
        try await withServer({ $0.timingAllowOrigin = sites.timingAllowOrigin }) { client in
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get) {
                #expect($0.headers[name] == "https://a.example, http://localhost:8080")
            }
        }
        let none = try ServerConfiguration(flags: [:], environment: ["FOCAL_TIMING_ALLOW_ORIGIN": "none"])
        #expect(none.timingAllowOrigin == nil)
        try await withServer({ $0.timingAllowOrigin = none.timingAllowOrigin }) { client in
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get) { #expect($0.headers[name] == nil) }
        }
        #expect(try ServerConfiguration(flags: ["timing-allow-origin": ["HTTPS://A.Example"]], environment: [:]).timingAllowOrigin == "https://a.example")
        for bad in ["https://a.example/path", "ftp://a.example", "https://a.example\r\nX-Evil: 1", "a.example", "https://*.example.com", "https://a.example:"] {
            #expect(throws: (any Error).self, "\(bad)") {
                try ServerConfiguration(flags: ["timing-allow-origin": [bad]], environment: [:])
            }
        }
    }

    /// `Server-Timing` carries the plan and the media type, so that a page that loaded the crop
    /// with a plain `<img src>` reads them from Resource Timing: the quoted string unescapes to
    /// exactly `X-Focal-Plan`.
    @Test func serverTimingCarriesThePlan() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/120x90/smart/grace_hopper.jpg", method: .get) { response in
                let plan = try #require(response.headers[HTTPField.Name("X-Focal-Plan")!])
                let timing = try #require(response.headers[HTTPField.Name("Server-Timing")!])
                #expect(timing.hasPrefix("focal-plan;desc=\""))
                #expect(timing.contains(", focal-type;desc=\"image/jpeg\""))
                // The quoted string, read as RFC 9110 says: backslash takes the next character.
                var text = "", escaped = false
                for character in timing.dropFirst("focal-plan;desc=\"".count) {
                    if escaped {
                        text.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        text.append(character)
                    }
                }
                #expect(text == plan)
                #expect(plan.contains("\"strategy\":\"faces\""))
            }
        }
    }

    @Test func notModifiedOnTheSameETag() async throws {
        try await withServer { client in
            let uri = "/unsafe/150x150/smart/grace_hopper.jpg"
            let tag = try await client.execute(uri: uri, method: .get) { $0.headers[.eTag] }
            let etag = try #require(tag)
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == etag)
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"other\""]) { #expect($0.status == .ok) }
            // Another size is another result with another tag.
            try await client.execute(uri: "/unsafe/151x150/smart/grace_hopper.jpg", method: .get) { #expect($0.headers[.eTag] != etag) }
        }
    }

    @Test func autoWebPNegotiatesAndVaries() async throws {
        try await withServer({ $0.autoWebP = true }) { client in
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get, headers: [.accept: "image/webp,*/*"]) { response in
                #expect(response.headers[.contentType] == "image/webp")
                #expect(response.headers[.vary] == "Accept")
            }
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get, headers: [.accept: "image/*"]) { response in
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.vary] == "Accept")
            }
            // A format the URL names wins, and does not vary.
            try await client.execute(uri: "/unsafe/100x100/filters:format(png)/grace_hopper.jpg", method: .get, headers: [.accept: "image/webp"]) {
                response in
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.vary] == nil)
            }
        }
    }

    /// `format(auto)` answers the best format the request's `Accept` names (AVIF, WebP, else
    /// JPEG; a PNG source is not sent as PNG), on any server, with `Vary: Accept`; requests that
    /// accept the same formats share one result (one tag), whatever else their `Accept` says.
    @Test func automaticFormatFollowsAccept() async throws {
        let chrome = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        let cases: [(accept: String?, type: String)] = [
            (chrome, "image/avif"), ("image/webp,*/*", "image/webp"), ("image/avif;q=0, image/webp;q=0.5", "image/webp"),
            ("IMAGE/AVIF", "image/avif"), ("*/*", "image/jpeg"), ("image/png,image/*", "image/jpeg"), (nil, "image/jpeg"),
        ]
        try await withServer { client in
            var tags: [String: Set<String>] = [:]
            for (accept, type) in cases {
                let headers: HTTPFields = accept.map { [.accept: $0] } ?? [:]
                try await client.execute(uri: "/unsafe/160x90/smart/filters:format(auto)/astronaut.png", method: .get, headers: headers) {
                    response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == type, "Accept: \(accept ?? "none")")
                    #expect(response.headers[.vary] == "Accept")
                    #expect(response.imageSize == PixelSize(width: 160, height: 90))
                    if let tag = response.headers[.eTag] { tags[type, default: []].insert(tag) }
                }
            }
            #expect(tags["image/jpeg"]?.count == 1, "*/*, image/png and no Accept at all share the JPEG")
            #expect(tags["image/webp"]?.count == 1, "two Accepts that take WebP only share the WebP")
            #expect(tags["image/avif"]?.count == 2, "AVIF with WebP (WebP past 4 MP) and AVIF alone (JPEG past it)")
            #expect(tags.values.reduce(Set<String>()) { $0.union($1) }.count == 4)
        }
    }

    /// `--auto-format` gives URLs that name no format the automatic format; a named one wins.
    @Test func autoFormatSettingNegotiatesUnnamedFormats() async throws {
        try await withServer({ $0.autoFormat = true }) { client in
            try await client.execute(uri: "/unsafe/100x100/grace_hopper.jpg", method: .get, headers: [.accept: "image/avif,image/webp"]) {
                response in
                #expect(response.headers[.contentType] == "image/avif")
                #expect(response.headers[.vary] == "Accept")
            }
            try await client.execute(uri: "/unsafe/100x100/astronaut.png", method: .get, headers: [.accept: "text/html"]) { response in
                #expect(response.headers[.contentType] == "image/jpeg", "a PNG source goes out as JPEG unless PNG is asked for")
            }
            try await client.execute(uri: "/unsafe/100x100/filters:format(png)/astronaut.png", method: .get, headers: [.accept: "image/avif"]) {
                response in
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.headers[.vary] == nil)
            }
        }
    }

    /// AVIF's encoder holds ~20 bytes a pixel: an AVIF output over 4 MP is a 422 naming the limit,
    /// while the automatic format sends WebP for that size.
    @Test func avifIsBoundedAndAutomaticFallsBackToWebP() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/2100x2100/filters:format(avif)/astronaut.png", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                let body = String(decoding: response.data, as: UTF8.self)
                #expect(body.contains("output.too_large"), "\(body)")
                #expect(body.contains("AVIF"), "\(body)")
            }
            try await client.execute(uri: "/unsafe/2100x2100/filters:format(auto)/astronaut.png", method: .get, headers: [.accept: "image/avif,image/webp"]) {
                response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/webp")
            }
        }
    }

    /// Each refusal has its documented status and code, as JSON.
    @Test(arguments: [
        ("/unsafe/300x300/filters:nope()/astronaut.png", HTTPResponse.Status.badRequest, "request.invalid"),
        ("/unsafe/300x300/../Package.swift", .notFound, "input.not_found"),
        ("/unsafe/300x300/%2E%2E%2FPackage.swift", .notFound, "input.not_found"),
        ("/unsafe/300x300/..%2FPackage.swift", .notFound, "input.not_found"),
        ("/unsafe/300x300/sub%2F..%2F..%2FPackage.swift", .notFound, "input.not_found"),
        ("/unsafe/300x300/sub/../../Package.swift", .notFound, "input.not_found"),
        ("/unsafe/300x200/filters:frame(chelsea.png):frame(coffee.png)/astronaut.png", .badRequest, "request.invalid"),
        ("/unsafe/300x300/nothing-here.jpg", .notFound, "input.not_found"),
        ("/unsafe/9000x9000/astronaut.png", .unprocessableContent, "output.too_large"),
        ("/unsafe/300x300/http%3A%2F%2F127.0.0.1%3A9%2Fa.jpg", .notFound, "fetch.address_refused"),
        ("/unsafe/300x300/http%3A%2F%2F10.0.0.1%2Fa.jpg", .notFound, "fetch.address_refused"),
        ("/unsafe/300x300/http%3A%2F%2F%5B%3A%3Affff%3A127.0.0.1%5D%2Fa.jpg", .notFound, "fetch.address_refused"),
        ("/unsafe/300x300/id:" + String(repeating: "0", count: 64), .notFound, "input.not_found"),
        ("/unsafe/trim:sideways/300x300/astronaut.png", .badRequest, "request.invalid"),
    ])
    func refusals(_ uri: String, _ status: HTTPResponse.Status, _ code: String) async throws {
        try await withServer { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == status, "\(uri)")
                #expect(response.json?["code"] as? String == code, "\(uri): \(String(decoding: response.data, as: UTF8.self))")
                #expect(response.json?["status"] as? Int == Int(status.code))
                #expect(response.headers[.cacheControl] == "no-store")
            }
        }
    }

    /// Every other spelling of an unsafe URL thumbor or imagor takes is a permanent redirect to
    /// the one Focal renders and caches, with its query; that one answers the image.
    @Test(arguments: [
        ("0300x0300/astronaut.png", "300x300/astronaut.png"),
        ("300x300/filters:quality(80):quality(80)/astronaut.png", "300x300/filters:quality(80)/astronaut.png"),
        ("300x300/filters:quality(70):format(png):quality(80)/astronaut.png", "300x300/filters:format(png):quality(80)/astronaut.png"),
        ("300x300/%61stronaut.png", "300x300/astronaut.png"),
        ("300x300/astronaut%2epng", "300x300/astronaut.png"),
        ("300x300/./astronaut.png", "300x300/astronaut.png"),
        ("300x300/filters:format(jpg)/astronaut.png", "300x300/filters:format(jpeg)/astronaut.png"),
        ("300x300/filters:fill(white)/astronaut.png", "300x300/filters:fill(ffffff)/astronaut.png"),
        ("300x300/filters:max_age(%33600)/astronaut.png", "300x300/filters:max_age(3600)/astronaut.png"),
        ("id:" + String(repeating: "A", count: 64), "id:" + String(repeating: "a", count: 64)),
    ])
    func otherSpellingsRedirect(_ path: String, _ canonical: String) async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/" + path + "?v=2", method: .get) { response in
                #expect(response.status == .permanentRedirect, "\(path): \(String(buffer: response.body))")
                #expect(response.headers[.location] == "/unsafe/" + canonical + "?v=2")
                #expect(response.json?["location"] as? String == "/unsafe/" + canonical + "?v=2")
            }
            guard !canonical.hasPrefix("id:") else { return }
            try await client.execute(uri: "/unsafe/" + canonical, method: .get) { response in
                #expect(response.status == .ok, "\(canonical): \(String(buffer: response.body))")
            }
        }
    }

    /// A signed URL is taken as its signer wrote it (thumbor's clients write `format(jpg)`); the
    /// same spelling on an unsafe URL, which anyone can write many ways, is refused naming the one
    /// to use. Leading zeros are refused either way.
    @Test func signedURLsKeepTheirSignersSpelling() async throws {
        try await withServer { client in
            let path = "300x200/filters:format(jpg)/astronaut.png"
            try await client.execute(uri: signed(path), method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
            }
            try await client.execute(uri: "/unsafe/" + path, method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location]?.contains("format(jpeg)") == true)
            }
            for path in ["0300x200/astronaut.png", "300x200/filters:quality(80):quality(80)/astronaut.png"] {
                try await client.execute(uri: signed(path), method: .get) { response in
                    #expect(response.json?["code"] as? String == "request.not_canonical", "\(path)")
                }
            }
        }
    }

    /// Filter arguments are percent-decoded once, as thumbor's router decodes them: a signed URL
    /// whose client encoded `curve`'s brackets is served as the plain one; an unsafe one is
    /// refused naming its plain spelling; a `%` that encodes nothing is a 400 that says so.
    @Test func encodedFilterArgumentsAreDecodedOnce() async throws {
        try await withServer { client in
            let line = "(0,0),(255,255)"
            let plain = "300x200/filters:curve([(0,255),(255,0)],[\(line)],[\(line)],[\(line)]):format(png)/astronaut.png"
            let encoded = "300x200/filters:curve(%5B(0,255),(255,0)%5D,%5B\(line)%5D,%5b\(line)%5d,%5B\(line)%5D):format(png)/astronaut.png"
            let expected = try await client.execute(uri: signed(plain), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return response.data
            }
            try await client.execute(uri: signed(encoded), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(response.data == expected, "the same image as the plain spelling")
            }
            try await client.execute(uri: "/unsafe/" + encoded, method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/unsafe/" + plain, "\(String(describing: response.headers[.location]))")
            }
            try await client.execute(uri: signed("300x200/filters:brightness(1%ZZ)/astronaut.png"), method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.json?["code"] as? String == "request.invalid")
                #expect((response.json?["message"] as? String)?.contains("%XX") == true, "\(String(describing: response.json))")
            }
        }
    }

    /// imagor's `b64:` sources: base64url, padded or not; in an unsigned URL only for source URLs
    /// (a path has its own plain spelling).
    @Test func imagorBase64Sources() async throws {
        @Sendable func b64(_ text: String, padded: Bool = false) -> String {
            var encoded = Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            if !padded { encoded = encoded.replacingOccurrences(of: "=", with: "") }
            return "b64:" + encoded
        }
        try await withServer { client in
            let plain = try await client.execute(uri: signed("300x200/filters:format(png)/astronaut.png"), method: .get) { $0.data }
            for padded in [false, true] {
                try await client.execute(uri: signed("300x200/filters:format(png)/\(b64("astronaut.png", padded: padded))"), method: .get) { response in
                    #expect(response.status == .ok, "\(String(buffer: response.body))")
                    #expect(response.data == plain, "the same image")
                }
            }
            try await client.execute(uri: "/unsafe/300x200/\(b64("astronaut.png"))", method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/unsafe/300x200/astronaut.png")
            }
            // A source URL may be written so: it is resolved as the URL itself is.
            let direct = try await client.execute(uri: "/unsafe/300x200/http://127.0.0.1:9/a.jpg", method: .get) { ($0.status, $0.json?["code"] as? String) }
            let encoded = try await client.execute(uri: "/unsafe/300x200/\(b64("http://127.0.0.1:9/a.jpg"))", method: .get) { ($0.status, $0.json?["code"] as? String) }
            #expect(encoded == direct && direct.1 != "request.not_canonical", "\(encoded) against \(direct)")
            // A name that only starts with b64: is taken as written.
            try await client.execute(uri: "/unsafe/300x200/b64:not~base64.png", method: .get) { #expect($0.status == .notFound) }
            // A watermark's source too.
            try await client.execute(uri: signed("300x200/filters:watermark(\(b64("chelsea.png")),0,0,0):format(png)/astronaut.png"), method: .get) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(response.data != plain)
            }
        }
    }

    /// An error echoes at most a line of what the client sent: a 60 KB path comes back as a short
    /// message, not whole.
    @Test func echoedPathsAreBounded() async throws {
        try await withServer { client in
            let long = String(repeating: "a", count: 60_000) + ".png"
            try await client.execute(uri: "/unsafe/100x100/\(long)", method: .get) { response in
                #expect(response.status == .notFound)
                let message = response.json?["message"] as? String ?? ""
                #expect(message.count < 200, "\(message.count) characters")
                #expect(response.data.count < 1024)
            }
        }
    }

    /// `meta/` answers thumbor's JSON shape, with Focal's plan beside it.
    @Test func metaIsThumborsShapePlusFocal() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/meta/-400x225/smart/astronaut.png", method: .get) { response in
                #expect(response.status == .ok)
                let json = try #require(response.json)
                let thumbor = try #require(json["thumbor"] as? [String: Any])
                let source = try #require(thumbor["source"] as? [String: Any])
                #expect(source["width"] as? Int == 512 && source["height"] as? Int == 512)
                #expect(source["url"] as? String == "astronaut.png")
                let operations = try #require(thumbor["operations"] as? [[String: Any]])
                #expect(operations.map { $0["type"] as? String } == ["crop", "resize", "flip_horizontally"])
                #expect((thumbor["target"] as? [String: Any])?["width"] as? Int == 400)
                let focal = try #require(json["focal"] as? [String: Any])
                #expect(focal["strategy"] as? String == "faces")
                let relative = try #require(focal["relative"] as? [String: Any])
                #expect(relative["width"] as? Double == 1)
                let subjects = try #require(focal["subjects"] as? [[String: Any]])
                #expect(subjects.contains { $0["kind"] as? String == "face" })
                #expect(subjects.contains { $0["kind"] as? String == "person" }, "meta runs every detector")
                // The crop version the image URL carries, and an inline preview of the crop.
                let preview = try #require(focal["preview"] as? String)
                #expect(preview.hasPrefix("data:image/webp;base64,") && preview.count < 600)
                let webp = try #require(Data(base64Encoded: String(preview.dropFirst("data:image/webp;base64,".count))))
                #expect(String(decoding: webp.prefix(4), as: UTF8.self) == "RIFF" && String(decoding: webp[8..<12], as: UTF8.self) == "WEBP")
                let version = try #require(focal["version"] as? String)
                try await client.execute(uri: "/unsafe/-400x225/smart/astronaut.png", method: .get) { image in
                    let plan = try #require(image.headers[HTTPField.Name("X-Focal-Plan")!])
                    #expect(plan.contains("\"version\":\"\(version)\""))
                }
            }
        }
    }

    /// A manual crop first, then the crop inside it; alignments without smart.
    @Test func manualCropAndAlignment() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/meta/100x50:300x250/100x100/astronaut.png", method: .get) { response in
                let focal = try #require(response.json?["focal"] as? [String: Any])
                let crop = try #require(focal["crop"] as? [String: Any])
                #expect(crop["x"] as? Double == 100 && crop["y"] as? Double == 50 && crop["width"] as? Double == 200)
            }
            try await client.execute(uri: "/unsafe/meta/200x100/left/top/grace_hopper.jpg", method: .get) { response in
                let focal = try #require(response.json?["focal"] as? [String: Any])
                let crop = try #require(focal["crop"] as? [String: Any])
                #expect(crop["x"] as? Double == 0 && crop["y"] as? Double == 0)
                #expect(focal["strategy"] as? String == "manual")
            }
            try await client.execute(uri: "/unsafe/meta/200x100/right/bottom/grace_hopper.jpg", method: .get) { response in
                let crop = try #require((response.json?["focal"] as? [String: Any])?["crop"] as? [String: Any])
                #expect(crop["x"] as? Double == 0 && (crop["y"] as? Double ?? 0) + (crop["height"] as? Double ?? 0) == 600)
            }
        }
    }
}
