import Focal
import Foundation
import Logging
import Synchronization

/// What `/readyz` checks: everything a request can need, so that a replica that would fail a
/// kind of request is not ready (a cache in front then sends its requests elsewhere).
///
/// - The models: loaded at start (`prepare()`), and every model file of every accuracy present
///   (an `accuracy(accurate)` request loads its own files on first use).
/// - The saved crops' store, read within its deadline: SQLite is this replica's own, and a
///   failing one makes it not ready; PostgreSQL is shared by every replica, and a failing one
///   makes it degraded but ready (crops without a saved crop, and cached ones, are still served;
///   taking every replica out would serve nothing).
///
/// - A bucket root (`--root s3://…`), from its last listing: never listed (refused or
///   unreachable from the start) is not ready; failing after a listing worked is degraded
///   (`bucketProblem`).
///
/// The checks run in the background every second (`refreshReadiness`), so that a probe is
/// answered at once from the last result, however many come and however slow a failing store is.
struct Readiness: Sendable {
    /// Not ready: why, safe to show anyone.
    var problems: [String] = []
    /// Ready but without something: what, safe to show.
    var degraded: [String: String] = [:]

    var isReady: Bool { problems.isEmpty }
}

extension FocalService {
    /// The model files every accuracy may load.
    static var modelFiles: [String] { FaceDetector.modelFiles + [ObjectDetector.modelFile, ObjectDetector.headsFile] }

    /// What the last check found (see `Readiness`); before the first, not ready.
    func readiness() -> Readiness {
        lastReadiness.withLock { $0?.value } ?? Readiness(problems: ["the service is starting"])
    }

    /// Checks what a request can need (see `Readiness`) and keeps the result for `readiness()`.
    /// The store is probed only when its breaker lets a call through: while it is open, the store
    /// stays as failing as it was found.
    @discardableResult
    func refreshReadiness() async -> Readiness {
        var readiness = Readiness()
        if !isReady { readiness.problems.append("the models are not loaded yet") }
        readiness.problems += missingModels()
        let failure: String? = savedCrops.breaker.current == .open ? "the circuit breaker is open" : await savedCrops.probe()
        if let failure {
            if savedCrops.shared == nil {
                readiness.problems.append("the saved crops' database cannot be read")
            } else {
                readiness.degraded["saved_crops"] = "the shared database cannot be read: crops are made without saved crops"
            }
            if lastReadiness.withLock({ $0?.value.isReady != readiness.isReady || $0?.value.degraded != readiness.degraded }) {
                logger.warning("readiness: the saved crops' store failed", metadata: ["error": .string(failure)])
            }
        }
        if let problem = bucketProblem(&readiness) {
            if lastReadiness.withLock({ $0?.value.isReady != readiness.isReady || $0?.value.degraded != readiness.degraded }) {
                logger.warning("readiness: the root bucket cannot be listed", metadata: ["code": .string(problem.code), "error": .string(problem.detail)])
            }
        }
        lastReadiness.withLock { $0 = (ContinuousClock.now, readiness) }
        return readiness
    }

    /// A bucket root's part of readiness, from its last listing (`ImageCatalog.listing`): a
    /// bucket this replica has never listed (it refuses its credentials, permissions, bucket or
    /// endpoint, or cannot be reached) makes it not ready; one listed before that fails now, for
    /// any reason (a store down, credentials rotated under every replica), makes it degraded:
    /// the photos known are still served, and taking every replica out would serve nothing.
    /// Returns the failure, if any, for the log.
    func bucketProblem(_ readiness: inout Readiness) -> ImageCatalog.ListingFailure? {
        guard library.resolver.bucket != nil else { return nil }
        let (everListed, failure) = library.catalog.listing
        guard let failure else {
            if !everListed { readiness.problems.append("the root bucket has not been listed yet") }
            return nil
        }
        if !everListed {
            readiness.problems.append("the root bucket cannot be listed (\(failure.code)): \(failure.message)")
        } else {
            readiness.degraded["storage"] = "the root bucket cannot be listed (\(failure.code)): photos listed before are served"
        }
        return failure
    }

    /// The model files that are missing or empty, as messages that name the file (not its folder).
    func missingModels() -> [String] {
        guard let folder = try? ModelDirectory.locate(explicit: configuration.pipeline.modelsPath, containing: FaceDetector.modelFile) else {
            return ["the model folder is missing (\(FaceDetector.modelFile) not found)"]
        }
        return Self.modelFiles.compactMap { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: folder.file(name)))?[.size] as? NSNumber
            return (size?.intValue ?? 0) > 0 ? nil : "the model file \(name) is missing"
        }
    }
}
