import Focal
import FocalImaging
import FocalTestSupport
import FocalTools
import Foundation
import Testing

/// `ContactSheet` from the library, where nothing checks its settings first: any row height and
/// any aspect draw a bounded sheet, never a trap or an unbounded canvas.
@Suite struct ContactSheetTests {
    @Test("row heights outside 16...2048 and degenerate aspects are kept inside before any arithmetic")
    func extremeSettingsStayBounded() async throws {
        let pipeline = FocalPipeline(configuration: FocalConfiguration(modelsPath: Checkout.models))
        let analysis = try await pipeline.analyze(.file(Checkout.fixture("chelsea.png")), detect: false)
        for (rowHeight, expected) in [(Int.max, 2048), (Int.min, 16), (0, 16), (-5, 16), (40, 40)] {
            let sheet = ContactSheet(aspects: [(1, 1), (3, 2)], rowHeight: rowHeight)
            let png = try sheet.png([(name: "chelsea.png", analysis: analysis)])
            let image = try SourceImage.open(data: png)
            // One row of `expected` pixels, its label and the gaps around it.
            #expect(image.size.height > expected && image.size.height < expected + 64, "\(rowHeight): \(image.size)")
        }
        // Degenerate aspects end in a cell at most 8192 wide or in a planning error, never a trap.
        for aspect in [(1000, 1), (1, 0), (0, 0), (Int.max, 1)] {
            do {
                let png = try ContactSheet(aspects: [aspect], rowHeight: 32).png([(name: "chelsea.png", analysis: analysis)])
                #expect(try SourceImage.open(data: png).size.width <= 2 * 8192 + 64, "\(aspect)")
            } catch let error as FocalError {
                #expect(!error.publicMessage.isEmpty, "\(aspect)")
            }
        }
    }
}
