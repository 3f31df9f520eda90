import FocalCore
import FocalDetection
import FocalImaging
import FocalRuntime
import Foundation
import Synchronization

/// The built-in detectors for one accuracy, loaded once.
struct BuiltInDetectors: Sendable {
    let faces: FaceDetector
    let objects: ObjectDetector?
    let saliency: SaliencyDetector?
}

extension FocalPipeline {
    /// A face scored at least this is taken for a person's without asking the object detector.
    static let sureFaceScore = 0.9

    /// The subjects of an image: from the detection cache when its identity was seen with the same
    /// detector settings and the stages `scope` needs ran; otherwise the missing stages run.
    ///
    /// Stages run in order, each only when `scope` needs it: faces (with the caller's own
    /// detectors); cats, dogs and people when no face was found, or a pet could still outrank the
    /// faces, or for `.everything`; the salient region when no face was found, or for
    /// `.everything`. Only the stages the scope uses are returned, even when more are cached.
    func subjects(of copy: WorkingCopy, identity: ImageIdentity?, accuracy: Accuracy, scope: DetectionScope) async throws -> [Subject] {
        try await subjects(of: copy, identity: identity, accuracy: accuracy, scopes: [scope])[scope] ?? []
    }

    /// The subjects each scope uses, from one detection (the stages the broadest scope needs).
    func subjects(
        of copy: WorkingCopy, identity: ImageIdentity?, accuracy: Accuracy, scopes: Set<DetectionScope>
    ) async throws -> [DetectionScope: [Subject]] {
        let everything = scopes.contains(.everything)
        let key = identity.map { DetectionCache.Key(identity: $0.description, detectors: detectorSignature(accuracy)) }
        var entry = key.flatMap { detectionCache.entry(for: $0) } ?? DetectionCache.Entry(found: [:])
        let detectors = try builtInDetectors(accuracy)
        let image = copy.image
        // Models compile (or load from the compiled-model cache) while the image decodes: a
        // no-op once they are loaded, most of a one-photo process's start-up until then.
        if entry.found[.faces] == nil { detectors.faces.prepare(imageSize: image.size) }
        if entry.found[.objects] == nil { detectors.objects?.prepare() }
        let request = DetectionRequest(name: image.name, imageSize: image.size, wantsEverything: everything, executor: pool) {
            side, enlarge in try await copy.pixels(longSide: side, enlarge: enlarge)
        }
        var ran = false
        func stage(_ stage: DetectionCache.Stage, _ run: () async throws -> [Subject]) async throws {
            guard entry.found[stage] == nil else { return }
            try Task.checkCancellation()
            try image.deadline.check(source: image.name)
            if !ran { counters.withLock { $0.detections += 1 } }
            ran = true
            entry.found[stage] = try await run().filter { $0.box.area > 0 }
        }

        try await stage(.faces) { try await Self.run([detectors.faces] + extraDetectors, request) }
        let faces = (entry.found[.faces] ?? []).filter { $0.kind == .face || $0.kind == .head }
        let imageArea = Double(image.size.width) * Double(image.size.height)
        let largestFace = faces.map(\.box.area).max() ?? 0
        // A pet could still win when it could be 20 times the largest face, or when a face may be
        // an animal's own (YuNet fires on dogs, at 0.75–0.85 on the photos measured; the pet-face
        // rule needs the animal's box to tell).
        let petCouldWin = largestFace * SubjectSelection.petDominance <= imageArea
            || faces.contains { $0.confidence < Self.sureFaceScore }
        // Which stages this scope uses is decided by the faces alone, so that a crop's subjects
        // never depend on what an earlier request happened to detect. The salient region matters
        // whenever there is no face: it also places a pet or person larger than the crop.
        var cropUses: Set<DetectionCache.Stage> = [.faces], all: Set<DetectionCache.Stage> = [.faces]
        if let objects = detectors.objects, everything || faces.isEmpty || petCouldWin {
            all.insert(.objects)
            if faces.isEmpty || petCouldWin { cropUses.insert(.objects) }
            try await stage(.objects) { try await objects.detect(request) }
        }
        if let saliency = detectors.saliency, everything || faces.isEmpty {
            all.insert(.saliency)
            if faces.isEmpty { cropUses.insert(.saliency) }
            try await stage(.saliency) { try await saliency.detect(request) }
        }
        if ran {
            try configuration.limits.check(subjects: entry.subjects.count)
            if let key { detectionCache.store(entry, for: key) }
        } else {
            counters.withLock { $0.detectionCacheHits += 1 }
        }
        var result: [DetectionScope: [Subject]] = [:]
        for scope in scopes {
            let used = scope == .everything ? all : cropUses
            result[scope] = DetectionCache.Stage.allCases.filter(used.contains).flatMap { entry.found[$0] ?? [] }
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

    /// Identifies the detectors that run for `accuracy` and their settings, without loading them.
    func detectorSignature(_ accuracy: Accuracy) -> String {
        var identifiers = [FaceDetector.identifier(accuracy: accuracy, threshold: configuration.faceThreshold)]
        if configuration.detectObjects {
            identifiers.append(ObjectDetector.identifier(accuracy: accuracy, thresholds: configuration.objectThresholds))
        }
        if configuration.detectSaliency { identifiers.append(SaliencyDetector().identifier) }
        return (identifiers + extraDetectors.map(\.identifier)).joined(separator: "+")
    }

    /// The built-in detectors for `accuracy`, made once (models load on first use).
    /// Readies what the process's first detecting job needs before its image is read: on a
    /// thread of its own, libvips starts, then OpenVINO (its libraries and CPU plugin) is queued
    /// on the background model loader. In that order: both are mostly dynamic linking, which
    /// takes one lock per process, and the decode needs libvips first. The models themselves are
    /// queued once the image's shape is known (`subjects(of:...)`).
    func prepareDetection(_ accuracy: Accuracy) {
        guard !Self.prepared.exchange(true, ordering: .relaxed) else { return }
        let detectors = try? builtInDetectors(accuracy)
        Thread.detachNewThread {
            try? Vips.start()
            detectors?.faces.prepareRuntime()
        }
    }

    /// Whether a job of this process has started libvips and OpenVINO ahead of its image.
    private static let prepared = Atomic(false)

    func builtInDetectors(_ accuracy: Accuracy) throws -> BuiltInDetectors {
        if let detectors = builtIn.withLock({ $0[accuracy] }) { return detectors }
        let explicit = configuration.modelsPath
        let faces = try ModelDirectory.locate(explicit: explicit, containing: FaceDetector.modelFile)
        var objects: ObjectDetector?
        if configuration.detectObjects {
            let folder = try ModelDirectory.locate(explicit: explicit, containing: ObjectDetector.modelFile)
            objects = try ObjectDetector(
                models: folder, accuracy: accuracy, thresholds: configuration.objectThresholds, inference: configuration.inference)
        }
        let detectors = BuiltInDetectors(
            faces: try FaceDetector(models: faces, accuracy: accuracy, threshold: configuration.faceThreshold, inference: configuration.inference),
            objects: objects, saliency: configuration.detectSaliency ? SaliencyDetector() : nil)
        return builtIn.withLock { cache in
            if let existing = cache[accuracy] { return existing }
            cache[accuracy] = detectors
            return detectors
        }
    }
}
