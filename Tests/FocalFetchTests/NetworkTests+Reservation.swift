import Focal
@testable import FocalFetch
import Foundation
import FocalTestSupport
import Synchronization
import Testing

/// The loader's memory reservations on loopback: a refusal of the caller's budget comes back as
/// the caller's own error, whether it is met at the declared length or while an undeclared body
/// grows, so the server answers it as an overload (429), never as an internal failure.
extension NetworkTests {
    /// What the test's budget throws.
    struct BudgetSpent: Error {}

    /// The bytes a test's budget granted.
    final class Granted: Sendable {
        let bytes = Mutex(0)
    }

    /// A loader on loopback whose budget refuses any reservation above `most` bytes and counts
    /// what it granted.
    static func budgetedLoader(most: Int, granted: Granted) -> URLLoader {
        var settings = NetworkSettings(readTimeout: .seconds(30), totalTimeout: .seconds(60))
        settings.addressPolicy.allowedNetworks.append(loopback)
        return URLLoader(settings: settings, maxBytes: 64 << 20) { bytes in
            guard bytes <= most else { throw BudgetSpent() }
            granted.bytes.withLock { $0 += bytes }
        }
    }

    @Test("a body whose declared length the budget refuses fails with the budget's own error", arguments: ["/image/", "/chunked/"])
    func refusedReservationIsTheCallersError(route: String) async throws {
        try await withLoopbackServer { server in
            let granted = Granted()
            let loader = Self.budgetedLoader(most: 1000, granted: granted)
            let outcome = await Self.timed(BudgetSpent.self) { try await loader.fetch(server.url(route + "astronaut.png")) }
            #expect(outcome.error != nil, "\(route): got \(String(describing: outcome.other)) instead of the budget's error")
            #expect(outcome.other == nil)
        }
    }

    @Test("a body the budget can hold is fetched whole, reserved at least once its length")
    func grantedReservationFetches() async throws {
        try await withLoopbackServer { server in
            let granted = Granted()
            let loader = Self.budgetedLoader(most: 64 << 20, granted: granted)
            let body = try await loader.fetch(server.url("/image/astronaut.png"))
            #expect(body == (try Data(contentsOf: URL(fileURLWithPath: Checkout.fixture("astronaut.png")))))
            #expect(granted.bytes.withLock { $0 } >= body.count)
        }
    }
}
