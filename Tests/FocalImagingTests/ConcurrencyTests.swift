import FocalCore
import FocalImaging
import Foundation
import FocalTestSupport
import FocalTools
import Testing

extension LibvipsLayer {
    /// `SourceImage` is `Sendable`: decodes of one source from several threads must give what a
    /// decode alone gives.
    @Suite("SourceImage: decodes from several threads") struct ConcurrencyTests {
        /// Decodes of one source take turns on its `VipsSource`, pixels included; when the lock
        /// covered only building the pipeline, two decodes read it at once: libpng/libjpeg errors
        /// ("libpng read error", "cannot decode pixels") or wrong pixels. Up to five rounds of six
        /// tasks, stopping at the first bad outcome, so that the race shows reliably.
        @Test(arguments: [Fixture.coffee, .graceHopper])
        func proxiesOfOneSourceFromSeveralTasks(fixture: Fixture) async throws {
            let image = try SourceImage.open(path: fixture.path)
            let reference = try image.proxy(longSide: 300).bytes
            var outcomes: [String] = []
            for _ in 0..<5 where outcomes.allSatisfy({ $0 == "same" }) {
                outcomes = await withTaskGroup(of: String.self) { group in
                    for _ in 0..<6 {
                        group.addTask {
                            do {
                                return try image.proxy(longSide: 300).bytes == reference ? "same" : "different pixels"
                            } catch {
                                return "\(error)"
                            }
                        }
                    }
                    var all: [String] = []
                    for await outcome in group { all.append(outcome) }
                    return all
                }
            }
            #expect(outcomes.count == 6)
            #expect(outcomes.allSatisfy { $0 == "same" }, "\(outcomes)")
        }

        /// Separate sources of the same bytes are independent, so this one must always hold.
        @Test func separateSourcesFromSeveralTasks() async throws {
            let data = try Fixture.coffee.data
            let reference = try SourceImage.open(data: data).proxy(longSide: 300).bytes
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<6 {
                    group.addTask { (try? SourceImage.open(data: data).proxy(longSide: 300).bytes) == reference }
                }
                var all: [Bool] = []
                for await outcome in group { all.append(outcome) }
                return all
            }
            #expect(outcomes == Array(repeating: true, count: 6))
        }
    }
}
