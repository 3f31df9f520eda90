import Focal
import FocalImaging
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// imagor's `image(…)` through the URL and the command line: the overlay lands where it is asked,
/// changes only there, is part of the result key by its content, and bad spellings are 400s.
@Suite struct ImageOverlayRouteTests {
    @Test("image(chelsea.png,right,bottom) changes the bottom-right corner only, and a blend mode changes it otherwise")
    func overlayLands() async throws {
        try await withServer { client in
            let base = "/unsafe/400x300/filters:format(png)"
            let plain = try FilterRouteTests.pixels(try await FilterRouteTests.get(client, "\(base)/coffee.png").0)
            // The cat (451×300) fits the 400×300 output: laid at 400×266, at the bottom.
            let laid = try FilterRouteTests.pixels(try await FilterRouteTests.get(client, "\(base):image(chelsea.png,right,bottom)/coffee.png").0)
            let multiplied = try FilterRouteTests.pixels(try await FilterRouteTests.get(client, "\(base):image(chelsea.png,right,bottom,0,multiply)/coffee.png").0)
            #expect(laid.size == plain.size)
            let top = 3 * 400 * 10, bottom = 3 * 400 * 290
            #expect(laid.bytes[0..<top] == plain.bytes[0..<top], "the rows above the overlay are the photo's")
            #expect(laid.bytes[bottom..<(bottom + 1200)] != plain.bytes[bottom..<(bottom + 1200)], "the overlay covers the bottom")
            #expect(multiplied.bytes[bottom..<(bottom + 1200)] != laid.bytes[bottom..<(bottom + 1200)], "multiply is not normal")
        }
    }

    @Test("an unsafe URL in another spelling is redirected to imagor's one")
    func spellings() async throws {
        try await withServer { client in
            try await client.execute(uri: "/unsafe/300x200/filters:image(chelsea.png,right,bottom,0)/coffee.png", method: .get) { response in
                #expect(response.status == .permanentRedirect)
                #expect(response.headers[.location] == "/unsafe/300x200/filters:image(chelsea.png,right,bottom)/coffee.png")
            }
        }
    }

    @Test("a bad placement, a mask blend or a nested path is a 400", arguments: [
        ("/unsafe/300x200/filters:image(chelsea.png,wide,0)/coffee.png", "request.invalid"),
        ("/unsafe/300x200/filters:image(chelsea.png,0,0,0,mask)/coffee.png", "request.invalid"),
        ("/unsafe/300x200/filters:image(/100x100/chelsea.png,0,0)/coffee.png", "request.invalid"),
        ("/unsafe/300x200/filters:image(nothere.png,0,0)/coffee.png", "input.not_found"),
    ])
    func refusals(uri: String, code: String) async throws {
        try await withServer { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status.code >= 400 && response.status.code < 500, "\(uri): \(response.status)")
                #expect(response.json?["code"] as? String == code, "\(uri): \(String(buffer: response.body))")
            }
        }
    }

    @Test("focal crop --overlay lays the image as the URL's image(…) does")
    func cli() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let out = scratch.file("laid.png")
        let run = try await Run(["crop", Checkout.fixture("coffee.png"), "--size", "400x300", "--overlay", Checkout.fixture("chelsea.png") + ",right,bottom", "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        try await withServer { client in
            let served = try await FilterRouteTests.get(client, "/unsafe/400x300/smart/filters:image(chelsea.png,right,bottom):format(png)/coffee.png").0
            let written = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(try FilterRouteTests.pixels(served).bytes == FilterRouteTests.pixels(written).bytes)
        }
    }
}
