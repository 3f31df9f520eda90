import FocalTestSupport
import Foundation
import Synchronization
import Testing

@testable import FocalServer

/// The page-URL flood: on a `--key --public-photos` server, `/v1/page-urls` signs the gallery's
/// URLs for anyone, and its ladder gives thousands of shapes of each photo, each a cold render.
/// One client asking for them as fast as it can must not take the server from everyone else:
/// a client holds at most a share of the job places and of the memory budget, and the native
/// work of every client takes turns (`WorkLane`). (A hostile-input audit measured 3 of 5 cold
/// crops of a normal client refused with 429 during such a flood.)
@Suite(.serialized) struct PageURLFloodAbuseTests {
    final class Flood: Sendable {
        let stop = Atomic(false)
        let answers = Mutex<[String: Int]>([:])
        func count(_ answer: String) {
            let status = String(answer.prefix(12))
            answers.withLock { $0[status, default: 0] += 1 }
        }
    }

    /// The ladder's frames of long sides 96 to 512, in a fixed order.
    static let shapes: [(Int, Int)] = [96, 128, 192, 256, 384, 512].flatMap { long in
        (1...long).filter { PageURLLadder.allows(width: long, height: $0) }.flatMap { [(long, $0), ($0, long)] }
    }

    /// 32 threads from 127.0.0.1 sign ladder URLs of six photos and ask for each (every one a cold
    /// smart crop); meanwhile a client on 127.0.0.2 asks for five cold crops of another photo, one
    /// after the other: each is answered 200, none refused, each within 2 s.
    @Test func aNormalClientIsServedDuringAFlood() async throws {
        let key = "flood-test-key"
        let (process, port) = try await ServeProcess.start(["--key", key, "--public-photos", "--request-timeout", "60"], unsafe: false)
        defer { if process.isRunning { process.terminate() } }
        let photos = ["astronaut.png", "camera.png", "chelsea.png", "coffee.png", "hubble_deep_field.jpg", "motorcycle_left.png", "rocket.jpg"]
        let flood = Flood()
        let threads = 32
        let floodDone = (0..<threads).map { thread in
            Task.detached {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    Thread {
                        var next = thread * 131
                        while !flood.stop.load(ordering: .relaxed) {
                            let paths = (0..<16).map { i -> String in
                                let (w, h) = Self.shapes[(next + i) % Self.shapes.count]
                                return "\(w)x\(h)/smart/\(photos[(next + i) % photos.count])"
                            }
                            next += 16
                            let body = (try? JSONSerialization.data(withJSONObject: ["paths": paths])) ?? Data()
                            guard let signed = try? RawHTTP.post(port: port, path: "/v1/page-urls", json: body, timeout: 30),
                                let urls = Self.urls(in: signed)
                            else {
                                flood.count("signing failed")
                                continue
                            }
                            for url in urls where !flood.stop.load(ordering: .relaxed) {
                                flood.count((try? RawHTTP.get(port: port, path: url, timeout: 60)) ?? "no answer")
                            }
                        }
                        continuation.resume()
                    }.start()
                }
            }
        }
        // The flood first fills the server.
        try await Task.sleep(for: .seconds(4))
        let sizes = [(384, 288), (256, 256), (512, 384), (384, 216), (288, 384)]
        let paths = sizes.map { "\($0.0)x\($0.1)/smart/grace_hopper.jpg" }
        let body = try JSONSerialization.data(withJSONObject: ["paths": paths])
        let signed = try RawHTTP.post(port: port, path: "/v1/page-urls", json: body, from: "127.0.0.2", timeout: 10)
        let urls = try #require(Self.urls(in: signed), "the normal client's URLs are signed: \(signed.prefix(300))")
        var answers: [(String, Double)] = []
        for url in urls {
            let start = Date()
            let answer = try RawHTTP.get(port: port, path: url, from: "127.0.0.2", timeout: 30)
            answers.append((String(answer.prefix(300)), Date().timeIntervalSince(start)))
        }
        flood.stop.store(true, ordering: .relaxed)
        for task in floodDone { try await task.value }
        let seen = flood.answers.withLock { $0 }
        print("flood answers: \(seen); normal client: \(answers.map { "\($0.0.prefix(12)) in \(String(format: "%.2f", $0.1)) s" })")
        #expect((seen["HTTP/1.1 200"] ?? 0) >= 10, "the flood was served too: \(seen)")
        for (answer, seconds) in answers {
            #expect(answer.hasPrefix("HTTP/1.1 200"), "a normal client's cold crop during the flood: \(answer)")
            #expect(seconds < 2, "a normal client's cold crop took \(seconds) s during the flood")
        }
    }

    /// The `urls` of a `/v1/page-urls` answer.
    static func urls(in answer: String) -> [String]? {
        guard answer.hasPrefix("HTTP/1.1 200"), let start = answer.range(of: "\r\n\r\n")?.upperBound,
            let object = try? JSONSerialization.jsonObject(with: Data(answer[start...].utf8)) as? [String: Any]
        else { return nil }
        return object["urls"] as? [String]
    }
}
