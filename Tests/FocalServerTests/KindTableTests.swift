import Focal
import FocalTestSupport
import Foundation
import HummingbirdTesting
import NIOCore
import Testing

@testable import FocalServer

/// Every place that shows or ranks a subject kind reads `SubjectKind.traits`: the page's overlay
/// script and style sheet are served with the table, and neither spells a kind's colour itself.
@Suite struct KindTableTests {
    @Test("overlay.js and app.css are served with each kind's label and colour in place of their markers")
    func pageIsServedWithTheKindTable() async throws {
        let folder = Checkout.root.appendingPathComponent("Sources/FocalServer/Web")
        let overlay = try String(contentsOf: folder.appendingPathComponent("overlay.js"), encoding: .utf8)
        let css = try String(contentsOf: folder.appendingPathComponent("app.css"), encoding: .utf8)
        #expect(overlay.components(separatedBy: WebAssets.kindsMarker).count == 2, "the marker appears once")
        #expect(css.components(separatedBy: WebAssets.kindColoursMarker).count == 2, "the marker appears once")
        for kind in SubjectKind.allCases {
            #expect(!css.contains(kind.traits.colour), "app.css spells \(kind)'s colour itself")
            #expect(!overlay.contains("'\(kind.traits.label)'"), "overlay.js names \(kind) itself")
        }
        try await withServer { client in
            try await client.execute(uri: "/overlay.js", method: .get) { response in
                let served = String(buffer: response.body)
                #expect(served.contains("export const KINDS = " + WebAssets.kindsJSON + ";"))
                for kind in SubjectKind.allCases {
                    #expect(served.contains("\"\(kind.rawValue)\":{\"label\":\"\(kind.traits.label)\",\"colour\":\"\(kind.traits.colour)\"}"))
                }
            }
            try await client.execute(uri: "/app.css", method: .get) { response in
                let served = String(buffer: response.body)
                for kind in SubjectKind.allCases { #expect(served.contains("--kind-\(kind.rawValue): \(kind.traits.colour);")) }
                #expect(!served.contains(WebAssets.kindColoursMarker))
            }
        }
    }

    @Test("each kind's colour parses, and kinds a person tells apart are drawn apart")
    func coloursAreDistinct() {
        let colours = SubjectKind.allCases.map(\.traits.colour)
        #expect(Set(colours).count == colours.count)
        for kind in SubjectKind.allCases {
            let rgb = kind.traits.rgb
            #expect(Int(rgb.red) + Int(rgb.green) + Int(rgb.blue) > 0, "\(kind): \(kind.traits.colour) does not parse")
        }
    }
}
