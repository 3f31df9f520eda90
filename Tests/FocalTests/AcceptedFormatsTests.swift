import Focal
import FocalCore
import FocalImaging
import Testing

/// `AcceptedFormats`: what an `Accept` header allows, and the format chosen for an output size.
@Suite struct AcceptedFormatsTests {
    @Test(arguments: [
        ("image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", AcceptedFormats([.avif, .webp])),
        ("image/webp,*/*", [.webp]),
        ("*/*", []),
        ("image/*", []),
        ("", []),
        ("IMAGE/AVIF ; Q=0.4", [.avif]),
        ("image/avif;q=0, image/webp;q=0.001", [.webp]),
        ("image/avif;q=0.0,image/webp;q=0.000", []),
        ("image/avif;q=nonsense", []),
        ("image/avif;q=1e400", []),
        ("\timage/webp\t;\tq=1", [.webp]),
        ("image/avifx, image/webpx, text/image/avif", []),
        (",,,image/webp,,,", [.webp]),
    ] as [(String, AcceptedFormats)])
    func readsExplicitTypesWithTheirQuality(header: String, expected: AcceptedFormats) {
        #expect(AcceptedFormats(acceptHeader: header) == expected, "\(header)")
    }

    @Test func noHeaderAcceptsNeither() {
        #expect(AcceptedFormats(acceptHeader: nil) == [])
    }

    /// Only the first 64 media ranges are read: a megabyte of ranges costs no more than that.
    @Test func readsABoundedNumberOfRanges() {
        let padding = Array(repeating: "text/plain", count: 64).joined(separator: ",")
        #expect(AcceptedFormats(acceptHeader: padding + ",image/webp") == [])
        #expect(AcceptedFormats(acceptHeader: "image/webp," + padding) == [.webp])
    }

    /// Only the first 2 KiB are read, and no entry longer than 128 bytes: a 70 KB header of one
    /// long entry (which once cost 20 times a browser's) reads as nothing, and a cut entry is
    /// dropped whole, so its `q=0` cannot be lost.
    @Test func readsABoundedNumberOfBytes() {
        let long = "image/webp;" + String(repeating: "x", count: 70_000)
        #expect(AcceptedFormats(acceptHeader: long) == [])
        #expect(AcceptedFormats(acceptHeader: "image/avif," + long) == [.avif])
        // An entry cut at 2 KiB would read `image/avif;q`, which accepts AVIF: it is dropped whole.
        #expect(AcceptedFormats(acceptHeader: String(repeating: "x", count: 2035) + ",image/avif;q=0") == [])
        #expect(AcceptedFormats(acceptHeader: String(repeating: "x", count: 2040) + ",image/webp") == [], "past 2 KiB nothing is read")
        #expect(AcceptedFormats(acceptHeader: "image/webp," + String(repeating: "x", count: 2030) + ",image/avif") == [.webp])
    }

    @Test func bestFormatForASize() {
        let small = PixelSize(width: 1200, height: 800), large = PixelSize(width: 3000, height: 2000)
        #expect(AcceptedFormats([.avif, .webp]).best(for: small) == .avif)
        #expect(AcceptedFormats([.avif, .webp]).best(for: large) == .webp, "AVIF holds at most 4 MP")
        #expect(AcceptedFormats([.avif]).best(for: large) == .jpeg)
        #expect(AcceptedFormats([.webp]).best(for: small) == .webp)
        #expect(AcceptedFormats([]).best(for: small) == .jpeg)
        #expect(AcceptedFormats([.webp]).best(for: PixelSize(width: 20_000, height: 10)) == .jpeg, "WebP stops at 16 383 px")
    }
}
