@testable import FocalCore
import Testing

/// `redact(…)`'s spellings and the pixel work: every region hidden, nothing outside it touched.
@Suite struct RedactionTests {
    @Test func spellingsAndTheirCanonicalText() throws {
        let cases: [(String, String)] = [
            ("blur", "blur"), ("Pixelate", "pixelate"), ("pixelation, 12", "pixelate,12"), ("000000", "000000"), ("#FF00aa", "ff00aa"),
            ("black", "000000"), ("white", "ffffff"), ("blur,40,face+person", "blur,40,face+person"), ("pixelate,faces+cats", "pixelate,face+cat"),
            ("blur,people", "blur,person"), ("pixelate,oval,8,cats", "pixelate,8,cat,oval"), ("blur,rectangle", "blur"),
        ]
        for (text, canonical) in cases {
            #expect(try Redaction(text: text).text == canonical, "\(text)")
        }
        let oval = try Redaction(text: "blur,oval")
        #expect(oval.shape == .oval && oval.kinds == [.face])
        for bad in ["", "glitter", "oval,blur", "blur,0", "blur,101", "blur,1,2,3,4", "ff00f", "+f00ff", "blur,saliency", "blur,face+face", "blur,-3"] {
            #expect(throws: PlanningError.self, "\(bad)") { try Redaction(text: bad) }
        }
        #expect(try Redaction(text: "blur").hides(.head), "a head inferred from a person is a face")
    }

    /// A 40×30 gradient: every pixel different.
    func gradient() -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { bytes += [UInt8(x * 6), UInt8(y * 8), UInt8((x + y) * 3)] } }
        return PixelBuffer(unchecked: 40, height: 30, bytes: bytes)
    }

    func pixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] { Array(b.bytes[(3 * (y * b.width + x))..<(3 * (y * b.width + x) + 3)]) }

    @Test func onlyTheRegionsChange() throws {
        let image = gradient()
        let region = PixelRect(x: 10, y: 5, width: 16, height: 12)
        for text in ["blur", "pixelate,4", "00ff00"] {
            for shape in [Redaction.Shape.rectangle, .oval] {
                let hidden = image.redacting([region], with: try Redaction(text: text + (shape == .oval ? ",oval" : "")))
                var changedInside = 0
                for y in 0..<30 {
                    for x in 0..<40 {
                        let inside = x >= 10 && x < 26 && y >= 5 && y < 17
                        if !inside { #expect(pixel(hidden, x, y) == pixel(image, x, y), "\(text) \(shape) touched (\(x), \(y))") }
                        if inside && pixel(hidden, x, y) != pixel(image, x, y) { changedInside += 1 }
                    }
                }
                #expect(changedInside > (shape == .oval ? 120 : 170), "\(text) \(shape): \(changedInside) of 192 changed")
                if shape == .oval { #expect(pixel(hidden, 10, 5) == pixel(image, 10, 5), "an oval leaves its box's corners") }
            }
        }
        // Pixelated: blocks of one colour; filled: the colour.
        let blocks = image.redacting([region], with: try Redaction(text: "pixelate,4"))
        #expect(pixel(blocks, 10, 5) == pixel(blocks, 13, 8))
        #expect(pixel(image.redacting([region], with: try Redaction(text: "00ff00")), 12, 7) == [0, 255, 0])
        // Regions past the edges are clipped, not refused.
        let edge = image.redacting([PixelRect(x: -5, y: 25, width: 100, height: 100)], with: try Redaction(text: "000000"))
        #expect(pixel(edge, 0, 29) == [0, 0, 0] && pixel(edge, 39, 24) == pixel(image, 39, 24))
        #expect(image.redacting([PixelRect(x: Int.max - 1, y: 0, width: Int.max, height: 3)], with: try Redaction(text: "blur")).bytes == image.bytes)
    }
}
