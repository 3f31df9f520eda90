import FocalCore
import FocalImaging
import Testing

/// A redaction hides what the alpha band draws too: a shape in alpha alone (black on clear) is
/// pixelated or blurred like the colours, and a fill makes its region opaque; outside the
/// regions, alpha is as it was.
@Suite struct RedactionAlphaTests {
    /// 64×64, black everywhere, alpha a checkerboard of 4 px squares (the "picture" is in alpha).
    static func checkered() throws -> RenderedImage {
        var rgba = [UInt8](repeating: 0, count: 64 * 64 * 4)
        for y in 0..<64 {
            for x in 0..<64 { rgba[4 * (y * 64 + x) + 3] = (x / 4 + y / 4) % 2 == 0 ? 255 : 0 }
        }
        return try RenderedImage(rgba: rgba, size: PixelSize(width: 64, height: 64))
    }

    @Test(arguments: ["pixelate", "blur", "ff00ff"])
    func alphaIsHiddenInsideAndKeptOutside(style: String) throws {
        let image = try Self.checkered()
        let before = try image.rgbaPixels()
        let region = PixelRect(x: 16, y: 16, width: 32, height: 32)
        let after = try image.redacting([region], with: Redaction(text: style)).rgbaPixels()
        #expect(after.count == before.count, "alpha kept")
        func alpha(_ p: [UInt8], _ x: Int, _ y: Int) -> UInt8 { p[4 * (y * 64 + x) + 3] }
        var inside = Set<UInt8>(), outsideSame = true
        for y in 0..<64 {
            for x in 0..<64 {
                if region.x <= x, x < region.x + region.width, region.y <= y, y < region.y + region.height {
                    inside.insert(alpha(after, x, y))
                } else if alpha(after, x, y) != alpha(before, x, y) {
                    outsideSame = false
                }
            }
        }
        #expect(outsideSame, "alpha outside the region changed")
        if style == "ff00ff" {
            #expect(inside == [255], "a fill is opaque: \(inside)")
        } else {
            // The 4 px checkerboard is gone: blocks of at least 8 px average it, the blur smooths it.
            #expect(!inside.contains(0) && !inside.contains(255), "\(style): the alpha pattern still shows: \(inside.sorted())")
        }
    }
}
