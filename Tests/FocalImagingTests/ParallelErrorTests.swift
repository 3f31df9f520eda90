import FocalCore
import FocalImaging
import FocalTestSupport
import FocalTools
import Foundation
import Testing

extension LibvipsLayer {
    /// libvips keeps one error buffer for the whole process. Failing and succeeding decodes of
    /// five formats run side by side on many threads; each failure must carry the code and the
    /// libvips text it gives when it runs alone, never another input's.
    @Suite("SourceImage: errors of parallel decodes stay with their inputs") struct ParallelErrorTests {
        /// The inputs: truncated files of each format (most fail when decoded, one while its header
        /// is read) and whole ones that must decode.
        static func inputs() throws -> [(name: String, data: Data)] {
            let hopper = try Fixture.graceHopper.data, coffee = try Fixture.coffee.data
            let photo = try SourceImage.open(data: coffee).decode(width: 200, height: 133)
            let webp = try photo.encode(.webp, quality: 80)
            let pixels = try photo.pixels()
            let gif = ImageBytes.gif(width: 200, height: 133, palette: [RGB(0, 0, 0), RGB(255, 0, 0), RGB(0, 255, 0), RGB(0, 0, 255)]) {
                x, y in (x / 7 + y / 5) % 4
            }
            let tiff = ImageBytes.tiff(pixels)
            func cut(_ data: Data, _ fraction: Double) -> Data { data.prefix(Int(Double(data.count) * fraction)) }
            return [
                ("cut.jpg", cut(hopper, 0.6)), ("head.jpg", hopper.prefix(300)), ("cut.png", cut(coffee, 0.6)),
                ("cut.gif", cut(gif, 0.7)), ("cut.tif", cut(tiff, 0.6)), ("cut.webp", cut(webp, 0.6)),
                ("whole.jpg", hopper), ("whole.png", coffee), ("whole.gif", gif), ("whole.tif", tiff), ("whole.webp", webp),
            ]
        }

        /// What one open and decode gives: "ok <pixel digest>", or "<code> | <libvips text>".
        static func outcome(_ data: Data, name: String) -> String {
            do {
                let pixels = try SourceImage.open(data: data, name: name).proxy(longSide: 120).bytes
                return "ok \(pixels.count) \(pixels.reduce(0) { ($0 &* 31) &+ Int($1) })"
            } catch let error as ImagingError {
                return "\(error.code) | \(error.cause ?? "")"
            } catch let error as any FocalError {
                return "\(error.code) | \(error.detail)"
            } catch {
                return "untyped | \(error)"
            }
        }

        /// The words that name each format in libvips's and its libraries' messages.
        static let formatWords: [String: [String]] = [
            "jpg": ["jpeg", "jpg"], "png": ["png", "spng"], "gif": ["gif"], "tif": ["tiff"], "webp": ["webp"],
        ]

        @Test func failuresKeepTheirOwnCodeAndText() throws {
            let inputs = try Self.inputs()
            // Alone, one after another: the reference for each input.
            let reference = inputs.map { Self.outcome($0.data, name: $0.name) }
            for (input, expected) in zip(inputs, reference) {
                let ext = (input.name as NSString).pathExtension
                if input.name.hasPrefix("whole") {
                    #expect(expected.hasPrefix("ok"), "\(input.name): \(expected)")
                    continue
                }
                #expect(expected.hasPrefix("input.corrupt | "), "\(input.name): \(expected)")
                let text = expected.split(separator: "|", maxSplits: 1).last.map { $0.lowercased() } ?? ""
                #expect(text.count > 3, "\(input.name) has no libvips text: \(expected)")
                // Distinguishable: a failure's text names no other format.
                for (other, words) in Self.formatWords where other != ext {
                    #expect(!words.contains { text.contains($0) }, "\(input.name): \(expected)")
                }
            }
            // Each format fails with text of its own.
            let cut = Set(zip(inputs, reference).filter { $0.0.name.hasPrefix("cut.") }.map(\.1))
            #expect(cut.count == inputs.filter { $0.name.hasPrefix("cut.") }.count, "two formats fail with the same text: \(cut)")

            // Side by side: 12 rounds of every input, shuffled, on 8 threads.
            var generator = SplitMix64(seed: 0x5EED)
            let jobs = (0..<12).flatMap { _ in inputs.indices }.shuffled(using: &generator)
            let results = Results(count: jobs.count)
            let next = Counter()
            let done = DispatchGroup()
            for _ in 0..<8 {
                done.enter()
                Thread {
                    while let job = next.take(below: jobs.count) {
                        let input = inputs[jobs[job]]
                        results.set(job, Self.outcome(input.data, name: input.name))
                    }
                    done.leave()
                }.start()
            }
            done.wait()
            var mixedUp: [String] = []
            for (job, index) in jobs.enumerated() where results.get(job) != reference[index] {
                mixedUp.append("\(inputs[index].name): \(results.get(job)) instead of \(reference[index])")
            }
            #expect(mixedUp.isEmpty, "\(mixedUp.count) of \(jobs.count) outcomes differ from the input's own:\n\(mixedUp.joined(separator: "\n"))")
        }
    }
}

/// Hands out job numbers to threads.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take(below limit: Int) -> Int? {
        lock.withLock {
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}

/// Outcomes written by several threads.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String]
    init(count: Int) { values = Array(repeating: "", count: count) }
    func set(_ index: Int, _ value: String) { lock.withLock { values[index] = value } }
    func get(_ index: Int) -> String { lock.withLock { values[index] } }
}
