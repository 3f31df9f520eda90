import FocalCore
import FocalDetection
import FocalImaging
import FocalRuntime
import Foundation
import Synchronization

extension FocalPipeline {
    /// The subjects of an image: from the detection cache when its identity was seen with the same
    /// detector settings and the stages `scope` needs ran; otherwise the missing stages run.
    func subjects(of copy: WorkingCopy, identity: ImageIdentity?, accuracy: Accuracy, scope: DetectionScope) async throws -> [Subject] {
        try await subjects(of: copy, identity: identity, accuracy: accuracy, scopes: [scope])[scope] ?? []
    }

    /// The subjects each scope uses, from one detection: the stages run in order, each as its
    /// declaration says (`DetectionStage.use`) given what the stages a crop uses found before it,
    /// so that a crop's subjects never depend on what an earlier request happened to detect. What
    /// a stage found is cached under its id; only the stages the scopes use are returned, even
    /// when more are cached.
    func subjects(
        of copy: WorkingCopy, identity: ImageIdentity?, accuracy: Accuracy, scopes: Set<DetectionScope>
    ) async throws -> [DetectionScope: [Subject]] {
        guard let identity else { return try await detect(in: copy, key: nil, accuracy: accuracy, scopes: scopes) }
        // Jobs for the same image detect in turn: the second finds the first's subjects cached.
        let key = DetectionCache.Key(identity: identity.description, detectors: detectorSignature(accuracy))
        return try await detectionTurns.inTurn(key) { try await detect(in: copy, key: key, accuracy: accuracy, scopes: scopes) }
    }

    /// The body of `subjects(of:identity:accuracy:scopes:)`: the stages `scopes` need that the
    /// cache entry under `key` (none when nil) lacks run, and the entry is stored after each.
    private func detect(
        in copy: WorkingCopy, key: DetectionCache.Key?, accuracy: Accuracy, scopes: Set<DetectionScope>
    ) async throws -> [DetectionScope: [Subject]] {
        let everything = scopes.contains(.everything)
        var entry = key.flatMap { detectionCache.entry(for: $0) } ?? DetectionCache.Entry(found: [:])
        let loaded = try loadedStages(accuracy)
        let image = copy.image
        // Models compile (or load from the compiled-model cache) while the image decodes: a
        // no-op once they are loaded, most of a one-photo process's start-up until then.
        for (stage, ready) in loaded where entry.found[stage.id] == nil { ready.prepare(image.size, .init(stage.loadOrder)) }
        let request = DetectionRequest(name: image.name, imageSize: image.size, wantsEverything: everything, executor: pool) {
            side, enlarge in try await copy.pixels(longSide: side, enlarge: enlarge)
        }
        var ran = false
        var cropUses: [String] = [], all: [String] = []
        for (stage, ready) in loaded {
            let before = cropUses.flatMap { entry.found[$0] ?? [] }
            let use = stage.use(DetectionStage.Context(found: before, imageSize: image.size, everything: everything))
            guard use != .skipped else { continue }
            if use == .cropped { cropUses.append(stage.id) }
            all.append(stage.id)
            guard entry.found[stage.id] == nil else { continue }
            try Task.checkCancellation()
            try image.deadline.check(source: image.name)
            if !ran { counters.withLock { $0.detections += 1 } }
            ran = true
            entry.found[stage.id] = try await StepClock.time(StepClock.token("detect-" + stage.id)) { try await Self.run(ready.detectors, request) }.filter { $0.box.area > 0 }
            // Stored stage by stage: a job cancelled after a stage leaves what it found to the
            // job that waits for its turn.
            try configuration.limits.check(subjects: entry.subjects(loaded.map(\.0.id)).count)
            if let key { detectionCache.store(entry, for: key) }
        }
        if !ran { counters.withLock { $0.detectionCacheHits += 1 } }
        var result: [DetectionScope: [Subject]] = [:]
        for scope in scopes {
            // A crop uses the kinds a default crop counts; the object detector's other classes
            // are listed (`.everything`), and read by a crop that names kinds (`Detect`).
            let found = (scope == .everything ? all : cropUses).flatMap { entry.found[$0] ?? [] }
            result[scope] = scope == .everything ? found : found.filter(\.kind.traits.countsByDefault)
        }
        return result
    }

    /// Runs detectors side by side; results in detector order, whichever finished first.
    private static func run(_ detectors: [any SubjectDetecting], _ request: DetectionRequest) async throws -> [Subject] {
        try await withThrowingTaskGroup(of: (Int, [Subject]).self) { group in
            for (index, detector) in detectors.enumerated() {
                group.addTask { (index, try await detector.detect(request)) }
            }
            var found: [Int: [Subject]] = [:]
            for try await (index, subjects) in group { found[index] = subjects }
            return detectors.indices.flatMap { found[$0] ?? [] }
        }
    }

    /// What this pipeline's answers depend on besides the image, the request's options and saved
    /// crops: Focal's release, the results' format, and every detector with its models,
    /// thresholds and precision at each accuracy. Equal tags mean the same crop for the same
    /// request; a server folds it into the crop versions of its URLs (`?v=`).
    public var configurationTag: String {
        ([FocalVersion.string, ResultKey.schema] + Accuracy.allCases.map(detectorSignature)).joined(separator: "|")
    }

    /// Identifies the stages that run for `accuracy` and their settings, without loading them.
    func detectorSignature(_ accuracy: Accuracy) -> String {
        let signature = stages.compactMap { $0.identifier(accuracy, configuration) }.joined(separator: "+")
        // The kinds a library's own stages declare rank by their registered rows
        // (`SubjectKindTraits.register`): another ranking plans other crops. Only those: the
        // table is the process's, and a kind another pipeline registers changes no key here.
        guard !ownKinds.isEmpty else { return signature }
        let own = SubjectKindTraits.all.filter { ownKinds.contains($0.kind) }
        guard !own.isEmpty else { return signature }
        return signature + ";kinds " + own.map { "\($0.kind.rawValue):\($0.priority):\($0.strategy.rawValue)" }.joined(separator: ",")
    }

    /// Readies what the process's first detecting job needs before its image is read: on a
    /// thread of its own, libvips starts, then OpenVINO (its libraries and CPU plugin) is queued
    /// on the background model loader. In that order: both are mostly dynamic linking, which
    /// takes one lock per process, and the decode needs libvips first. The models themselves are
    /// queued once the image's shape is known (`subjects(of:...)`).
    func prepareDetection() {
        guard !Self.prepared.exchange(true, ordering: .relaxed) else { return }
        let settings = configuration.inference
        Thread.detachNewThread {
            try? Vips.start()
            BackgroundModelLoads.prepareRuntime(settings)
        }
    }

    /// Whether a job of this process has started libvips and OpenVINO ahead of its image.
    private static let prepared = Atomic(false)

    /// The stages that are on for `accuracy`, their detectors made once (models load on first use).
    func loadedStages(_ accuracy: Accuracy) throws -> [(DetectionStage, DetectionStage.Loaded)] {
        if let loaded = loadedStages.withLock({ $0[accuracy] }) { return loaded }
        var loaded: [(DetectionStage, DetectionStage.Loaded)] = []
        for stage in stages {
            if let ready = try stage.load(accuracy, configuration) { loaded.append((stage, ready)) }
        }
        return loadedStages.withLock { table in
            if let existing = table[accuracy] { return existing }
            table[accuracy] = loaded
            return loaded
        }
    }
}
