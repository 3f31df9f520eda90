@testable import Focal
import Foundation
import FocalTestSupport
import Testing

// Identical requests sharing one job, cancellation of callers and jobs, the bound on jobs, and
// LatestCrop. A GateDetector holds each job inside detection until the test lets it go, so that
// every join and cancellation provably happens while the job is in flight.

private let astronaut = ImageInput.file(Checkout.fixture("astronaut.png"))

/// A pipeline on the checkout's models with `gate` beside the built-in detectors.
private func gatedPipeline(_ gate: GateDetector, maxJobs: Int? = nil) -> FocalPipeline {
    makePipeline(detectors: [gate]) { configuration in
        if let maxJobs { configuration.maxJobs = maxJobs }
    }
}

@Suite struct SharedWorkTests {
    @Test("identical requests at once share one job: one decode, one detection, one render, the same bytes")
    func identicalRequestsShare() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let target = CropTarget.size(width: 200, height: 200)
        let calls = (0..<8).map { _ in Tracked { try await pipeline.crop(astronaut, to: target) } }

        try await pollUntil("all 8 requests are admitted and the job is at the gate") {
            let statistics = pipeline.statistics
            return statistics.jobsStarted + statistics.jobsJoined == 8 && gate.waiting == 1
        }
        var statistics = pipeline.statistics
        #expect(statistics.jobsStarted == 1)
        #expect(statistics.jobsJoined == 7)
        #expect(calls.allSatisfy { !$0.isDone })

        gate.open()
        var results: [CropResult] = []
        for call in calls { results.append(try await call.value()) }
        #expect(Set(results.map(\.data)).count == 1)
        #expect(results.allSatisfy { $0.origin == .fresh && $0.plan == results[0].plan })
        statistics = pipeline.statistics
        #expect(statistics.requests == 8)
        #expect(statistics.detections == 1)
        #expect(statistics.proxyDecodes == 1)
        #expect(statistics.renders == 1)
        #expect(statistics.jobsStarted == 1)
        #expect(statistics.jobsJoined == 7)
        #expect(statistics.jobsCancelled == 0)
        #expect(statistics.memoryEntries == 1)
        #expect(gate.calls == 1)
    }

    @Test(
        "a cancelled caller leaves at once while the job completes for the other, and the result is cached",
        arguments: ["the caller that started the job", "the caller that joined it"])
    func oneCallerCancels(cancelled: String) async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let target = CropTarget.size(width: 200, height: 200)
        let starter = Tracked { try await pipeline.crop(astronaut, to: target) }
        try await pollUntil("the first caller starts the job") { pipeline.statistics.jobsStarted == 1 }
        let joiner = Tracked { try await pipeline.crop(astronaut, to: target) }
        try await pollUntil("the second caller joins and the job is at the gate") {
            pipeline.statistics.jobsJoined == 1 && gate.waiting == 1
        }
        let (leaving, staying) = cancelled == "the caller that started the job" ? (starter, joiner) : (joiner, starter)

        leaving.cancel()
        // The gate is still shut, so finishing now means it did not wait for the job.
        try await pollUntil("the cancelled caller returns") { leaving.isDone }
        #expect(leaving.threwCancellation)
        #expect(!staying.isDone)
        #expect(gate.waiting == 1, "the job is still running")

        gate.open()
        let result = try await staying.value()
        #expect(result.origin == .fresh)
        let statistics = pipeline.statistics
        #expect(statistics.jobsCancelled == 0)
        #expect(statistics.renders == 1)
        #expect(statistics.memoryEntries == 1)
        let later = try await pipeline.crop(astronaut, to: target)
        #expect(later.origin == .memoryCache)
        #expect(later.data == result.data)
        #expect(pipeline.statistics.renders == 1)
    }

    @Test("a srcset ladder at once: three sizes of one image are three jobs that detect once, in turn")
    func sizesOfOneImageDetectOnce() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let sizes = [(320, 180), (640, 360), (1024, 576)]
        let calls = sizes.map { size in
            Tracked { try await pipeline.crop(astronaut, to: .size(width: size.0, height: size.1)) }
        }
        try await pollUntil("the first job is at the gate and the two others wait for its detection") {
            gate.waiting == 1 && pipeline.detectionTurns.waiting == 2
        }
        #expect(pipeline.statistics.jobsStarted == 3, "each size is a job of its own")

        gate.open()
        var results: [CropResult] = []
        for call in calls { results.append(try await call.value()) }
        #expect(zip(results, sizes).allSatisfy { $0.plan.outputSize == PixelSize(width: $1.0, height: $1.1) })
        #expect(gate.calls == 1, "the later jobs found the first one's subjects")
        #expect(pipeline.statistics.detections == 1)
        #expect(pipeline.detectionTurns.waiting == 0)
    }

    @Test("a job waiting for another's detection leaves at once when cancelled; the next size finds the subjects")
    func waitingForDetectionCancels() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let first = Tracked { try await pipeline.crop(astronaut, to: .size(width: 200, height: 200)) }
        try await pollUntil("the first job is at the gate") { gate.waiting == 1 }
        let second = Tracked { try await pipeline.crop(astronaut, to: .size(width: 300, height: 200)) }
        try await pollUntil("the second job waits for the first one's detection") { pipeline.detectionTurns.waiting == 1 }

        second.cancel()
        try await pollUntil("the cancelled job returns while the gate is still shut") { second.isDone }
        #expect(second.threwCancellation)
        #expect(pipeline.detectionTurns.waiting == 0, "it left the line")
        #expect(!first.isDone)

        gate.open()
        _ = try await first.value()
        _ = try await pipeline.crop(astronaut, to: .size(width: 100, height: 200))
        #expect(gate.calls == 1)
        #expect(pipeline.statistics.detections == 1)
    }

    @Test("when every caller cancels, the job stops and caches no result; a later request starts afresh with the subjects it found")
    func allCallersCancel() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let target = CropTarget.size(width: 200, height: 200)
        let first = Tracked { try await pipeline.crop(astronaut, to: target) }
        try await pollUntil("the first caller starts the job") { pipeline.statistics.jobsStarted == 1 }
        let second = Tracked { try await pipeline.crop(astronaut, to: target) }
        try await pollUntil("the second caller joins and the job is at the gate") {
            pipeline.statistics.jobsJoined == 1 && gate.waiting == 1
        }

        first.cancel()
        second.cancel()
        try await pollUntil("both callers return") { first.isDone && second.isDone }
        #expect(first.threwCancellation)
        #expect(second.threwCancellation)
        #expect(gate.waiting == 1, "the abandoned job is still inside detection")

        // Let the abandoned job reach its next check.
        gate.open()
        try await pollUntil("the abandoned job stops") { pipeline.statistics.jobsCancelled == 1 }
        var statistics = pipeline.statistics
        #expect(statistics.renders == 0)
        #expect(statistics.memoryEntries == 0)
        #expect(statistics.memoryBytes == 0)

        let later = try await pipeline.crop(astronaut, to: target)
        #expect(later.origin == .fresh)
        statistics = pipeline.statistics
        #expect(statistics.jobsStarted == 2)
        #expect(statistics.jobsCancelled == 1)
        // Each stage's subjects are cached when it ends: the later job runs only the stages the
        // abandoned one had not reached (at least its gate ran, so the gate is not called again).
        #expect(gate.calls == 1, "the abandoned job's finished stages were kept")
        #expect(statistics.renders == 1)
        #expect(statistics.memoryEntries == 1)
    }

    @Test("beyond maxJobs a distinct request is refused with Overloaded while an identical one joins")
    func maxJobs() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate, maxJobs: 1)
        let small = CropTarget.size(width: 100, height: 100)
        let large = CropTarget.size(width: 300, height: 300)
        let running = Tracked { try await pipeline.crop(astronaut, to: small) }
        try await pollUntil("the job is at the gate") { pipeline.statistics.jobsStarted == 1 && gate.waiting == 1 }

        await #expect(throws: NativeWorkPool.Overloaded.self) {
            try await pipeline.crop(astronaut, to: large)
        }
        #expect(pipeline.statistics.refused == 1)
        let identical = Tracked { try await pipeline.crop(astronaut, to: small) }
        try await pollUntil("the identical request joins") { pipeline.statistics.jobsJoined == 1 }
        #expect(pipeline.statistics.refused == 1)

        gate.open()
        let a = try await running.value()
        let b = try await identical.value()
        #expect(a.data == b.data)
        #expect(a.plan.outputSize == PixelSize(width: 100, height: 100))
        // With the job done there is room again.
        let later = try await pipeline.crop(astronaut, to: large)
        #expect(later.origin == .fresh)
        #expect(later.plan.outputSize == PixelSize(width: 300, height: 300))
        let statistics = pipeline.statistics
        #expect(statistics.jobsStarted == 2)
        #expect(statistics.jobsJoined == 1)
        #expect(statistics.refused == 1)
        #expect(statistics.renders == 2)
    }

    // MARK: - LatestCrop

    @Test("LatestCrop: a newer request cancels the one in progress at once, and only the newer one returns")
    func latestCancelsPrevious() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let holder = LatestCrop(pipeline: pipeline, input: astronaut)
        let a = Tracked { try await holder.crop(to: .size(width: 100, height: 100)) }
        try await pollUntil("A's job is at the gate") { gate.waiting == 1 }
        let b = Tracked { try await holder.crop(to: .size(width: 120, height: 120)) }
        try await pollUntil("A returns") { a.isDone }
        #expect(a.threwCancellation)
        #expect(!b.isDone)

        gate.open()
        let result = try await b.value()
        #expect(result.plan.outputSize == PixelSize(width: 120, height: 120))
        try await pollUntil("A's job stops") { pipeline.statistics.jobsCancelled == 1 }
        #expect(pipeline.statistics.renders == 1)
        #expect(pipeline.statistics.memoryEntries == 1)
    }

    @Test("LatestCrop: a repeat of the request in progress joins its work instead of restarting it")
    func latestRepeatJoins() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let holder = LatestCrop(pipeline: pipeline, input: astronaut)
        let frame = CropTarget.size(width: 100, height: 100)
        let a = Tracked { try await holder.crop(to: frame) }
        try await pollUntil("A's job is at the gate") { gate.waiting == 1 }
        let b = Tracked { try await holder.crop(to: frame) }
        try await pollUntil("B has joined") { holder.requestCount == 2 }
        #expect(pipeline.statistics.requests == 1, "B shares A's call into the pipeline")

        gate.open()
        let result = try await b.value()
        // A shares B's work, and is still superseded by it: it gets no result.
        try await pollUntil("A finishes") { a.isDone }
        #expect(a.threwCancellation)
        #expect(result.plan.outputSize == PixelSize(width: 100, height: 100))
        let statistics = pipeline.statistics
        #expect(statistics.jobsStarted == 1, "the repeat must not restart the work")
        #expect(statistics.jobsCancelled == 0)
        #expect(gate.calls == 1)
    }

    @Test("LatestCrop: of several successive requests only the last returns; every earlier one is cancelled")
    func latestOfMany() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let holder = LatestCrop(pipeline: pipeline, input: astronaut)
        let sides = [100, 110, 120, 130, 140]
        var calls: [Tracked<CropResult>] = []
        for (index, side) in sides.enumerated() {
            calls.append(Tracked { try await holder.crop(to: .size(width: side, height: side)) })
            // The first request's job is at the gate (held there even once cancelled); each later
            // one waits for that detection (and leaves the line when the next one cancels it).
            try await pollUntil("request \(index + 1) is at the gate or waits for its detection") {
                pipeline.statistics.jobsStarted == index + 1 && gate.waiting == 1 && pipeline.detectionTurns.waiting == min(index, 1)
            }
        }
        try await pollUntil("every earlier request returns") { calls.dropLast().allSatisfy(\.isDone) }
        for (index, call) in calls.dropLast().enumerated() {
            #expect(call.threwCancellation, "request \(index + 1) must be cancelled")
        }
        #expect(!calls.last!.isDone)

        gate.open()
        let result = try await calls.last!.value()
        #expect(result.plan.outputSize == PixelSize(width: 140, height: 140))
        try await pollUntil("the earlier jobs stop") { pipeline.statistics.jobsCancelled == sides.count - 1 }
        let statistics = pipeline.statistics
        #expect(statistics.jobsStarted == sides.count)
        #expect(statistics.renders == 1)
        #expect(statistics.memoryEntries == 1)
        #expect(gate.calls == 1, "the cancelled first job left what it found to the last")
    }

    @Test("LatestCrop: cancel() ends the request in progress, and the holder works afterwards")
    func latestCancel() async throws {
        let gate = GateDetector()
        defer { gate.open() }
        let pipeline = gatedPipeline(gate)
        let holder = LatestCrop(pipeline: pipeline, input: astronaut)
        let a = Tracked { try await holder.crop(to: .size(width: 100, height: 100)) }
        try await pollUntil("A's job is at the gate") { gate.waiting == 1 }
        holder.cancel()
        try await pollUntil("A returns") { a.isDone }
        #expect(a.threwCancellation)

        gate.open()
        let result = try await holder.crop(to: .size(width: 100, height: 100))
        #expect(result.origin == .fresh)
        #expect(result.plan.outputSize == PixelSize(width: 100, height: 100))
    }

    @Test("LatestCrop: an answer from the cache is not delivered when a newer request has come")
    func latestCachedStillOrdered() async throws {
        let gate = GateDetector(open: true)
        let pipeline = gatedPipeline(gate)
        let holder = LatestCrop(pipeline: pipeline, input: astronaut)
        // Warm the cache for 100x100. The slow request asks for other detector settings, so that
        // its subjects are not cached and it waits at the gate.
        _ = try await holder.crop(to: .size(width: 100, height: 100))
        gate.close()
        defer { gate.open() }
        let slow = Tracked {
            try await holder.crop(to: .size(width: 120, height: 120), options: FocalOptions(accuracy: .accurate))
        }
        try await pollUntil("the slow request is at the gate") { gate.waiting == 1 }
        let quick = try await holder.crop(to: .size(width: 100, height: 100))
        #expect(quick.origin == .memoryCache)
        try await pollUntil("the slow request returns") { slow.isDone }
        #expect(slow.threwCancellation, "an older request never returns after a newer one")
    }
}
