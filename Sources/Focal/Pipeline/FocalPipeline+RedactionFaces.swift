import FocalCore
import FocalDetection
import FocalImaging
import Synchronization

extension FocalPipeline {
    /// Faces for a redaction beyond what the detection stages find: the accurate proxy searched
    /// again at `Redaction.faceThreshold`, and each of 2 × 2 overlapping tiles of a copy up to twice
    /// as large searched at the proxy's size, so that faces too small for the whole-image pass are
    /// found (a small-face pass). Boxes in pixels of `copy`'s image.
    func redactionFaces(in copy: WorkingCopy) async throws -> [Subject] {
        let detector = try redactionDetector()
        let image = copy.image
        let request = DetectionRequest(name: image.name, imageSize: image.size, wantsEverything: true, executor: pool) {
            side, enlarge in try await copy.pixels(longSide: side, enlarge: enlarge)
        }
        var found = try await detector.detect(request)
        let proxySide = Accuracy.accurate.faceLongSide
        let long = max(image.size.width, image.size.height)
        // A copy up to twice the proxy, cut into four tiles that overlap by a sixth, each searched
        // at the proxy's size (at most twice its own): 1.7 times the whole pass's scale, also for
        // an image smaller than the proxy (whose tiles are enlarged, at most twice).
        let base = try await copy.pixels(longSide: min(long, 2 * proxySide), enlarge: false)
        let (sx, sy) = (Double(image.size.width) / Double(base.width), Double(image.size.height) / Double(base.height))
        let tileWidth = min(base.width, base.width * 7 / 12 + 1), tileHeight = min(base.height, base.height * 7 / 12 + 1)
        for (left, top) in [(0, 0), (base.width - tileWidth, 0), (0, base.height - tileHeight), (base.width - tileWidth, base.height - tileHeight)] {
            try Task.checkCancellation()
            let tile = PixelRect(x: left, y: top, width: tileWidth, height: tileHeight)
            let faces = try await pool.run { () throws -> [Subject] in
                // Enlarged to the proxy's size, at most twice: more invents faces in blurry texture.
                let side = min(proxySide, 2 * max(tile.width, tile.height))
                let pixels = try RenderedImage(pixels: base).cropped(tile, to: tile.size.fitting(longSide: side, enlarge: true)).pixels()
                let (tx, ty) = (Double(tile.width) / Double(pixels.width), Double(tile.height) / Double(pixels.height))
                return try detector.detectNow(in: pixels).map { face in
                    let box = face.box
                    let inBase = Box(x: Double(left) + box.x * tx, y: Double(top) + box.y * ty, width: box.width * tx, height: box.height * ty)
                    return Subject(kind: .face, box: inBase.scaled(x: sx, y: sy).clamped(to: image.size), confidence: face.confidence)
                }
            }
            found += faces
        }
        return found
    }

    /// The redaction's face detector, made once.
    private func redactionDetector() throws -> FaceDetector {
        if let made = redactionFaceDetector.withLock({ $0 }) { return made }
        let folder = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: FaceDetector.modelFile)
        let detector = try FaceDetector(models: folder, accuracy: .accurate, threshold: Redaction.faceThreshold, inference: configuration.inference)
        return redactionFaceDetector.withLock { existing in
            if let existing { return existing }
            existing = detector
            return detector
        }
    }
}
