import FocalCore
import FocalTestSupport
import Foundation
import Synchronization
import Testing

/// Animations inside the memory budget: a job that renders an animation reserves its frames as
/// decoded (`Animation.decodedBytes`) before it reads any, so a burst of requests for a long
/// animated WebP is admitted as far as `--memory-budget` holds and refused past it, instead of
/// holding several times the budget (a hostile-input audit measured 1.9 GiB for 40 such requests).
@Suite(.serialized) struct AnimationAdmissionTests {
    /// The answers and the peak memory seen, shared by the requests and the sampler.
    final class Seen: Sendable {
        let answers = Mutex<[String]>([])
        let peak: Mutex<Int>
        init(_ start: Int) { peak = Mutex(start) }
    }

    /// 40 requests at once, each for another size of a long animated WebP, as anyone can ask
    /// for them on a server that signs its page's URLs: with the budget at its default (256 MiB),
    /// the server's memory grows by well under twice the budget (before: about 920 MiB here),
    /// some are answered and the rest are refused with 429 `server.overloaded` at once.
    @Test func animatedWebPRequestsStayInsideTheBudget() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // 40 frames of 800×640: 80 MB decoded, as the audit's 100 of 500×400, in less work.
        let pan = try PanningAnimation(
            .graceHopper, canvas: PixelSize(width: 800, height: 640), spriteWidth: 480, frames: 40, from: (0, 0), to: (320, 10), format: .webp)
        try pan.data.write(to: URL(fileURLWithPath: scratch.file("pan.webp")))
        // A long request timeout: the jobs admitted finish however loaded the machine running the tests is.
        let (process, port) = try await ServeProcess.start(["--root", scratch.path, "--request-timeout", "240"])
        defer { if process.isRunning { process.terminate() } }
        let pid = process.processIdentifier
        let before = AnswerAbuseTests.residentMiB(pid)
        // Sizes on the page's ladder, each a cold render: 40 frames of each stay under
        // `maxAnimationOutputPixels`.
        let sizes = [(384, 307), (384, 288), (384, 256), (384, 216), (512, 410), (512, 384), (512, 341), (512, 288)]
        let seen = Seen(before)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<40 {
                let (w, h) = sizes[i % sizes.count]
                let path = "/unsafe/\(w)x\(h + i / sizes.count)/smart/filters:format(webp)/pan.webp"
                group.addTask {
                    let answer = try await RawHTTP.getOnAThread(port: port, path: path, timeout: 300)
                    seen.answers.withLock { $0.append(String(answer.prefix(4000))) }
                }
            }
            group.addTask {
                while seen.answers.withLock({ $0.count }) < 40 {
                    let now = AnswerAbuseTests.residentMiB(pid)
                    seen.peak.withLock { $0 = max($0, now) }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            try await group.waitForAll()
        }
        let all = seen.answers.withLock { $0 }
        let served = all.filter { $0.hasPrefix("HTTP/1.1 200") }.count
        let refused = all.filter { $0.hasPrefix("HTTP/1.1 429") && $0.contains(#""code":"server.overloaded""#) }.count
        // A job admitted on a machine busy with other tests may run past the image's deadline.
        let late = all.filter { $0.hasPrefix("HTTP/1.1 422") && $0.contains(#""code":"input.timeout""#) }.count
        #expect(served + late >= 1, "some were admitted: \(all.first ?? "")")
        #expect(refused >= 20, "most were refused at once")
        #expect(served + refused + late == 40, "\(all.filter { !$0.hasPrefix("HTTP/1.1 200") && !$0.hasPrefix("HTTP/1.1 429") }.prefix(2))")
        let grown = seen.peak.withLock { $0 } - before
        #expect(grown < 512, "resident memory grew by \(grown) MiB for 40 animated WebP jobs with a 256 MiB budget")
    }
}
