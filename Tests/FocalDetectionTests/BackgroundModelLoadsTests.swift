@testable import FocalDetection
import Foundation
import Synchronization
import Testing

// The background loader's order: one thread, the runtime before faces before objects whatever
// order they are asked in, each key once. Real closures on the real loader thread; the first one
// holds the loader until the rest are queued.

@Suite struct BackgroundModelLoadsTests {
    @Test func runsTheMostUrgentFirstAndEachKeyOnce() async throws {
        let id = UUID().uuidString
        let order = Mutex<[String]>([])
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        BackgroundModelLoads.start("\(id)-hold", priority: .runtime) {
            holding.signal()
            gate.wait()
            order.withLock { $0.append("hold") }
        }
        // The loader is busy with "hold": the next ones wait in the queue.
        #expect(holding.wait(timeout: .now() + 20) == .success)
        for (name, priority) in [("objects", BackgroundModelLoads.Priority(2)), ("faces-a", .init(1)), ("faces-b", .init(1)), ("runtime", .runtime)] {
            BackgroundModelLoads.start("\(id)-\(name)", priority: priority) { order.withLock { $0.append(name) } }
        }
        // Asked again: ignored.
        BackgroundModelLoads.start("\(id)-objects", priority: .runtime) { order.withLock { $0.append("again") } }
        gate.signal()
        BackgroundModelLoads.wait()
        #expect(order.withLock { $0 } == ["hold", "runtime", "faces-a", "faces-b", "objects"])
    }
}
