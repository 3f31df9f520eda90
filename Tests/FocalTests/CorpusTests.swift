import Focal
import FocalImaging
import FocalTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The hostile-input corpus (`make corpus`, scripts/focalscripts/corpus.py) through everything an input meets:
/// open, detect, plan, render and encode. Each file must give a result or a typed error with the
/// code its manifest allows, never a crash, within a time bound and, run as `focal crop` in a
/// process of its own, under a memory bound. The corpus must exist: these tests fail without it.
@Suite("Hostile corpus", .serialized) struct CorpusTests {
    /// The most one input may take, open to encoded output, in seconds: the library's deadline
    /// (inputs run two at a time in a debug build; the slowest alone takes about 4 s). `make test`
    /// runs this suite in a process of its own, so that other suites cannot slow its clock.
    static let secondsPerInput = 30.0
    /// The most resident memory `focal crop` may reach for one input, models and detection
    /// included (about 230 MB of it for any photo), in MiB. docs/limits.md, Hostile input.
    static let peakMB = 512.0

    /// The codes of inputs refused from their header, before any pixel is decoded.
    static let refusedFromHeader: Set<String> = ["input.too_costly", "input.too_many_pixels", "input.extreme_aspect", "input.too_large"]
    /// The most such a refusal may take, reading and hashing a file of up to 64 MiB included.
    static let secondsToRefuse = 2.0

    /// What the pipeline gives: "ok" or the error's code; anything else is described in full.
    static func outcome(_ body: () async throws -> CropResult) async -> String {
        do {
            _ = try await body()
            return "ok"
        } catch let error as any FocalError {
            return knownErrorCodes.contains(error.code) ? error.code.rawValue : "unknown code \(error.code): \(error.detail)"
        } catch {
            return "untyped error \(type(of: error)): \(error)"
        }
    }

    @Test("every corpus file through the pipeline, to a size and to an aspect: a result or the typed error its manifest allows")
    func pipeline() async throws {
        let corpus = try HostileCorpus()
        #expect(corpus.entries.count >= 150, "the corpus is smaller than scripts/focalscripts/corpus.py makes it")
        // Inputs run side by side here; the memory budget (a server's refusal of concurrent large
        // jobs, tested in AbuseTests) is set past what they can hold together, so that each input
        // gets its own outcome.
        let pipeline = makePipeline { $0.memoryBudget = 4 << 30 }
        var failures = 0
        func seconds(since start: ContinuousClock.Instant) -> Double {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        try await withThrowingTaskGroup(of: (HostileCorpus.Entry, String, Double, String, Double).self) { group in
            var next = 0
            func submit() {
                guard next < corpus.entries.count else { return }
                let entry = corpus.entries[next]
                next += 1
                group.addTask {
                    var start = ContinuousClock.now
                    let sized = await Self.outcome { try await pipeline.crop(.file(entry.path), to: .size(width: 400, height: 400)) }
                    let sizedSeconds = seconds(since: start)
                    start = ContinuousClock.now
                    let aspect = await Self.outcome { try await pipeline.crop(.file(entry.path), to: .aspect(width: 16, height: 9)) }
                    return (entry, sized, sizedSeconds, aspect, seconds(since: start))
                }
            }
            for _ in 0..<2 { submit() }
            while let (entry, sized, sizedSeconds, aspect, aspectSeconds) = try await group.next() {
                if !entry.allows(sized) { failures += 1 }
                #expect(entry.allows(sized), "\(entry.name) (\(entry.note)) to 400x400: \(sized), expected \(entry.expect)")
                // To an aspect the output limits differ, so only the kind of answer is checked.
                let typed = aspect == "ok" || (knownErrorCodes.contains(ErrorCode(rawValue: aspect)) && aspect != "internal.failure")
                #expect(typed, "\(entry.name) (\(entry.note)) to 16:9: \(aspect)")
                #expect(sizedSeconds < Self.secondsPerInput && aspectSeconds < Self.secondsPerInput, "\(entry.name) took \(sizedSeconds) s, \(aspectSeconds) s")
                // A bomb is refused from its header: at once, never after a decode.
                if Self.refusedFromHeader.contains(sized) {
                    #expect(sizedSeconds < Self.secondsToRefuse, "\(entry.name): \(sized) after \(sizedSeconds) s")
                }
                submit()
            }
        }
        #expect(failures == 0)
    }

    @Test("every corpus file through `focal crop --size 400x400` in a process of its own: exit 0 or 1, the code its manifest allows, bounded time and memory")
    func commandLine() async throws {
        let corpus = try HostileCorpus()
        #expect(corpus.entries.count >= 150)
        let scratch = try Scratch()
        defer { scratch.remove() }
        var peak = (name: "", mb: 0.0), slowest = (name: "", seconds: 0.0)
        try await withThrowingTaskGroup(of: (HostileCorpus.Entry, MeasuredRun).self) { group in
            var next = 0
            func submit() {
                guard next < corpus.entries.count else { return }
                let entry = corpus.entries[next]
                next += 1
                group.addTask {
                    let run = try await MeasuredRun(
                        Checkout.focal, ["crop", entry.path, "--size", "400x400", "-o", scratch.file(entry.name + ".out.jpg"), "--json"],
                        limit: 60)
                    return (entry, run)
                }
            }
            for _ in 0..<2 { submit() }
            while let (entry, run) = try await group.next() {
                let what = "\(entry.name) (\(entry.note))"
                #expect(run.signal == nil, "\(what) ended by signal \(run.signal ?? 0): \(run.stderr)")
                #expect(run.exitCode == 0 || run.exitCode == 1, "\(what) exited \(String(describing: run.exitCode)): \(run.stderr)")
                let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
                let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                let outcome = run.exitCode == 0 ? "ok" : (object?["code"] as? String ?? "no JSON line: \(run.stdout)")
                #expect(entry.allows(outcome), "\(what): \(outcome), expected \(entry.expect); \(run.stderr)")
                #expect(run.peakMB < Self.peakMB, "\(what) peaked at \(Int(run.peakMB)) MiB")
                #expect(run.seconds < Self.secondsPerInput, "\(what) took \(run.seconds) s")
                if run.peakMB > peak.mb { peak = (entry.name, run.peakMB) }
                if run.seconds > slowest.seconds { slowest = (entry.name, run.seconds) }
                submit()
            }
        }
        print("corpus through focal crop: peak \(Int(peak.mb)) MiB (\(peak.name)), slowest \(slowest.seconds) s (\(slowest.name))")
    }

    /// Paths that are not regular files, and a file whose size alone is over the byte limit:
    /// refused before reading a byte, at once (reading /dev/zero or a FIFO would never end).
    @Test("a FIFO, /dev/zero, a link to it and a sparse 2 GB file are refused at once, by SourceImage and by focal crop")
    func notFiles() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let fifo = scratch.file("pipe.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        let link = scratch.file("zero.jpg")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/zero")
        let sparse = scratch.file("sparse.jpg")
        #expect(FileManager.default.createFile(atPath: sparse, contents: Data([0xFF, 0xD8, 0xFF])))
        #expect(truncate(sparse, 2 << 30) == 0)
        let cases: [(String, ErrorCode)] = [(fifo, .inputNotAFile), ("/dev/zero", .inputNotAFile), (link, .inputNotAFile), (sparse, .inputTooLarge)]
        for (path, code) in cases {
            let start = ContinuousClock.now
            do {
                _ = try SourceImage.open(path: path)
                Issue.record("\(path) opened")
            } catch let error as any FocalError {
                #expect(error.code == code, "\(path): \(error)")
            }
            #expect(ContinuousClock.now - start < .seconds(1), "\(path)")
            let run = try await MeasuredRun(Checkout.focal, ["crop", path, "--size", "400x400", "-o", scratch.file("out.jpg"), "--json"], limit: 30)
            #expect(run.exitCode == 1, "\(path): \(run.stderr)")
            #expect(run.stdout.contains("\"code\":\"\(code.rawValue)\""), "\(path): \(run.stdout)")
            #expect(run.seconds < 5, "\(path) took \(run.seconds) s")
        }
    }
}
