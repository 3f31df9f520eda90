import Focal
import FocalImaging
import FocalTestSupport
import FocalTools
import Foundation
import Testing

/// `ContactSheet` from the library, where nothing checks its settings first: any row height and
/// any aspect draw a bounded sheet, never a trap or an unbounded canvas.
@Suite struct ContactSheetTests {
    @Test("row heights outside 32...1024 and degenerate aspects are kept inside before any arithmetic")
    func extremeSettingsStayBounded() async throws {
        let pipeline = makePipeline()
        let analysis = try await pipeline.analyze(.file(Checkout.fixture("chelsea.png")), detect: false)
        // Drawing is synchronous and takes seconds in a debug build: on a thread of its own, so
        // that it never holds one of the few cooperative threads other tests run on.
        let heights = try await Self.offThePool {
            try [Int.max, Int.min, 0, -5, 40].map { rowHeight in
                let png = try ContactSheet(aspects: [(1, 1)], rowHeight: rowHeight).png([(name: "chelsea.png", analysis: analysis)])
                return (rowHeight, try SourceImage.open(data: png).size.height)
            }
        }
        for ((rowHeight, height), expected) in zip(heights, [1024, 32, 32, 32, 40]) {
            // One row of `expected` pixels, its label and the gaps around it.
            #expect(height > expected && height < expected + 64, "\(rowHeight): \(height)")
        }
        // Degenerate aspects end in a cell at most 8192 wide or in a planning error, never a trap.
        let outcomes = try await Self.offThePool {
            [(1000, 1), (1, 0), (0, 0), (Int.max, 1)].map { aspect -> String in
                do {
                    let png = try ContactSheet(aspects: [aspect], rowHeight: 32).png([(name: "chelsea.png", analysis: analysis)])
                    let width = try SourceImage.open(data: png).size.width
                    return width <= 2 * 8192 + 64 ? "drawn" : "\(aspect): \(width) wide"
                } catch let error as any FocalError {
                    return error.publicMessage.isEmpty ? "\(aspect): an error without a message" : "refused"
                } catch {
                    return "\(aspect): \(error)"
                }
            }
        }
        #expect(outcomes.allSatisfy { $0 == "drawn" || $0 == "refused" }, "\(outcomes)")
    }

    /// Runs `work` on a thread of its own and returns its result.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
