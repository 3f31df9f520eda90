import FocalTestSupport
import Foundation
import Testing

@testable import FocalServer

#if canImport(Glibc)
import Glibc
#endif

/// `focal serve` with its shared database (PostgreSQL) stopped or frozen, each on loopback with a
/// real server: cached crops and crops of images with no saved crop are still served (the latter
/// marked `X-Focal-Degraded: saved-crops`), nothing waits on the database past its deadline,
/// readiness says degraded, and SIGTERM still ends the process within its bound.
@Suite(.serialized) struct DatabaseAbuseTests {
    /// A GET on a connection of its own: status line, headers (lower-cased names) and how long it took.
    static func get(_ port: Int, _ path: String) async throws -> (status: String, headers: [String: String], took: Duration) {
        let started = ContinuousClock.now
        let answer = try await RawHTTP.getOnAThread(port: port, path: path, timeout: 60)
        let took = ContinuousClock.now - started
        let head = answer.components(separatedBy: "\r\n\r\n").first ?? ""
        var headers: [String: String] = [:]
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (String(head.split(separator: "\r\n").first ?? ""), headers, took)
    }

    static let warm = "/unsafe/200x200/smart/astronaut.png"

    @Test func aStoppedDatabaseLeavesCropsServed() async throws {
        let database = try await PostgresServer.start(port: try FreePort.pick())
        defer { database.stop() }
        let (process, port) = try await ServeProcess.start(["--database=\(database.url)"])
        defer { if process.isRunning { process.terminate() } }
        let first = try await Self.get(port, Self.warm)
        #expect(first.status.hasSuffix("200 OK"))
        let id = try #require(first.headers["xkey"])

        try database.halt()
        let cached = try await Self.get(port, Self.warm)
        #expect(cached.status.hasSuffix("200 OK"), "a cached crop is served: \(cached)")
        #expect(cached.headers["x-focal-origin"] == "memory")
        #expect(cached.headers["x-focal-degraded"] == nil, "its saved crops were known: \(cached.headers)")

        let unsaved = try await Self.get(port, "/unsafe/300x200/smart/coffee.png")
        #expect(unsaved.status.hasSuffix("200 OK"), "a crop with nothing known of its saved crops is served: \(unsaved)")
        #expect(unsaved.headers["x-focal-degraded"] == "saved-crops")
        #expect(unsaved.headers["cache-control"]?.contains("s-maxage=5") == true)

        let ready = try await RawHTTP.getOnAThread(port: port, path: "/readyz", timeout: 10)
        #expect(ready.hasPrefix("HTTP/1.1 200") && ready.contains(#""status":"degraded""#), "\(ready)")
        let saved = try await Self.get(port, "/v1/images/\(id)/overrides")
        #expect(saved.status.contains(" 503 "), "the saved crops' routes say the database failed: \(saved)")
        #expect(saved.headers["x-focal-error"] == "server.storage")
        #expect(saved.took < .seconds(3))
        let metrics = try await RawHTTP.getOnAThread(port: port, path: "/metrics", timeout: 10)
        #expect(AnswerAbuseTests.counter(metrics, #"focal_degraded_total{what="saved_crops"}"#) >= 1, "\(metrics.suffix(2000))")

        // Back: crops are whole again once the breaker lets a call through (5 s at most).
        try database.resume()
        try await pollUntil("crops are made with saved crops again", seconds: 30) {
            let answer = (try? RawHTTP.get(port: port, path: "/unsafe/310x200/smart/coffee.png", timeout: 60)) ?? ""
            return answer.hasPrefix("HTTP/1.1 200") && !answer.lowercased().contains("x-focal-degraded")
        }
    }

    @Test func aFrozenDatabaseHoldsNothingUp() async throws {
        let database = try await PostgresServer.start(port: try FreePort.pick())
        defer { database.stop() }
        let (process, port) = try await ServeProcess.start(["--database=\(database.url)"])
        defer { if process.isRunning { process.terminate() } }
        let first = try await Self.get(port, Self.warm)
        let id = try #require(first.headers["xkey"])

        try database.freeze()
        defer { try? database.thaw() }
        let cached = try await Self.get(port, Self.warm)
        #expect(cached.status.hasSuffix("200 OK"), "\(cached)")
        #expect(cached.took < .seconds(3), "a cached crop waited \(cached.took) on a frozen database")
        let unsaved = try await Self.get(port, "/unsafe/300x200/smart/coffee.png")
        #expect(unsaved.status.hasSuffix("200 OK"), "\(unsaved)")
        #expect(unsaved.headers["x-focal-degraded"] == "saved-crops")
        let saved = try await Self.get(port, "/v1/images/\(id)/overrides/16x9")
        #expect(saved.status.contains(" 503 "), "\(saved)")
        #expect(saved.took < .seconds(3), "a saved crop's route waited \(saved.took)")

        // SIGTERM with the database frozen: out well within the shutdown bound (35 s).
        let stopping = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        try await pollUntil("focal serve exits", seconds: 40) { !process.isRunning }
        let took = ContinuousClock.now - stopping
        #expect(took < .seconds(15), "SIGTERM took \(took) with the database frozen")
    }
}
