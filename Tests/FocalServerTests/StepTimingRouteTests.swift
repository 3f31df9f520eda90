import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import FocalServer

/// Every image answer says where its time went: `Server-Timing` has a `dur` for each step of
/// the crop that took time (devtools show them; a file under the root is identified from its
/// stamp, with no `fetch` to speak of), a cached answer says so, and `/metrics` has a histogram
/// per step.
@Suite struct StepTimingRouteTests {
    /// The `name;dur=ms` entries of a `Server-Timing` value, in order.
    static func durations(_ value: String) -> [(String, Double)] {
        let pattern = /([a-z0-9-]+);dur=([0-9.]+)/
        return value.matches(of: pattern).compactMap { match in Double(match.output.2).map { (String(match.output.1), $0) } }
    }

    @Test func imageAnswersTimeEachStepAndMetricsKeepThem() async throws {
        try await withServer(.live) { client in
            let uri = "/unsafe/130x90/smart/grace_hopper.jpg"
            let fresh = try await client.execute(uri: uri, method: .get) { try #require($0.headers[.serverTiming]) }
            let steps = Self.durations(fresh)
            let names = steps.map(\.0)
            for name in ["open", "decode", "proxy", "infer-faces", "detect-faces", "plan", "render", "encode"] {
                #expect(names.contains(name), "\(name) in \(fresh.suffix(600))")
            }
            #expect(steps.allSatisfy { $0.1 >= 0 } && steps.reduce(0) { $0 + $1.1 } > 1, "\(steps)")
            #expect(!fresh.contains("cache;desc="))

            let cached = try await client.execute(uri: uri, method: .get) { try #require($0.headers[.serverTiming]) }
            #expect(cached.contains(#"cache;desc="memory""#), "\(cached.suffix(300))")
            let again = Self.durations(cached).map(\.0)
            #expect(again.contains("look-up-result") && !again.contains("decode"), "\(again)")

            let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            for step in ["decode", "infer-faces", "encode"] {
                #expect(metrics.contains(#"focal_step_duration_seconds_count{step="\#(step)"} 1"#), "\(step)")
            }
        }
    }
}
