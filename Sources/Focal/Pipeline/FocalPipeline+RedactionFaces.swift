import FocalCore
import FocalDetection
import FocalImaging
import Synchronization

extension FocalPipeline {
    /// Faces for a redaction beyond what the detection stages find (`detected`): the accurate
    /// proxy searched again at `Redaction.faceThreshold`, and each of 2 × 2 overlapping tiles of a
    /// copy up to twice as large searched at the proxy's size, so that faces too small for the
    /// whole-image pass are found (a small-face pass). These, and the faces in `detected` scored
    /// under `Redaction.sureScore`, are candidates: one that lies on a face `detected` is sure of
    /// is certain; any other gets a second look (`secondLook`): confirmed at
    /// `Redaction.confirmedScore` or more, uncertain from `Redaction.uncertainScore`, and not a face
    /// below that (fists, arms, fur and folds of cloth score 0 there). Boxes in pixels of `copy`'s
    /// image.
    /// - Returns: The candidates, and the cats and dogs found around faces on no person or pet
    ///   (`animalsAround(_:in:)`), in pixels of `copy`'s image.
    func redactionFaces(in copy: WorkingCopy, confirmedBy detected: [Subject]) async throws -> (candidates: [RedactionCandidate], animals: [Subject]) {
        let detector = try redactionDetector(accuracy: .accurate, threshold: Redaction.faceThreshold, in: redactionFaceDetector)
        let image = copy.image
        let request = DetectionRequest(name: image.name, imageSize: image.size, wantsEverything: true, executor: pool) {
            side, enlarge in try await copy.pixels(longSide: side, enlarge: enlarge)
        }
        var found = try await detector.detect(request)
        let proxySide = Accuracy.accurate.faceLongSide
        let long = max(image.size.width, image.size.height)
        // A copy up to three times the proxy, cut into tiles that overlap by a sixth, each at most
        // the proxy's side (2 × 2 tiles of 7/12 of each side for a copy up to 2,200 px, more for a
        // larger one), each searched at the proxy's size (at most twice its own): an image smaller
        // than the proxy is seen enlarged up to twice, a large one at its own scale (0.96 for a
        // 12 MP photo; 0.73 with the 2 × 2 tiles alone for a 6 MP one, which missed faces of 12 px).
        let base = try await copy.pixels(longSide: min(long, Redaction.tileCopySides * proxySide), enlarge: false)
        let (sx, sy) = (Double(image.size.width) / Double(base.width), Double(image.size.height) / Double(base.height))
        let tileWidth = min(base.width, proxySide, base.width * 7 / 12 + 1), tileHeight = min(base.height, proxySide, base.height * 7 / 12 + 1)
        for (left, top) in Self.tileOrigins(base.size, tile: PixelSize(width: tileWidth, height: tileHeight)) {
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
        // Faces the detection stages are sure of need no second look; their weaker ones get one too.
        let known = detected.filter { $0.kind == .face && $0.confidence >= Redaction.sureScore }
        // (The lower-threshold pass on the same proxy usually finds them again: each is looked at once.)
        let weak = detected.filter { $0.kind == .face && $0.confidence < Redaction.sureScore }
        found += weak.filter { face in !found.contains { Self.isSameFace($0.box, face.box) } }
        var candidates: [RedactionCandidate] = []
        let source = try await pool.run { try RenderedImage(pixels: base) }
        var looks = 0
        for face in found {
            if known.contains(where: { Self.isSameFace(face.box, $0.box) }) {
                candidates.append(RedactionCandidate(face: face, certain: true))
                continue
            }
            try Task.checkCancellation()
            try image.deadline.check(source: image.name)
            // Past the most looks a photo gets, the rest are hidden unexamined, as faces with their
            // margin (an uncertain one is hidden at its own size): bounded, and closed.
            looks += 1
            guard looks <= Redaction.mostSecondLooks else {
                candidates.append(RedactionCandidate(face: face, certain: true))
                continue
            }
            let inBase = Box(x: face.box.x / sx, y: face.box.y / sy, width: face.box.width / sx, height: face.box.height / sy)
            let score = try await pool.run { try self.secondLook(at: inBase, in: source) }
            if score >= Redaction.uncertainScore { candidates.append(RedactionCandidate(face: face, certain: score >= Redaction.confirmedScore)) }
        }
        // A candidate on no person and no pet the whole image showed may be an animal's face the
        // object detector missed at the proxy's scale: it looks again around it. (Never a face
        // the stages are sure of: a child's cheek against a puppy must stay hidden.)
        let people = detected.filter { $0.kind == .person }, pets = detected.filter { $0.kind.traits.strategy == .pets }
        let alone = candidates.map(\.face.box).filter { box in
            !people.contains { $0.box.contains(x: box.midX, y: box.midY) } && !pets.contains { $0.box.contains(x: box.midX, y: box.midY) }
        }
        var animals: [Subject] = []
        for box in alone.prefix(Redaction.mostAnimalLooks) {
            try Task.checkCancellation()
            try image.deadline.check(source: image.name)
            let inBase = Box(x: box.x / sx, y: box.y / sy, width: box.width / sx, height: box.height / sy)
            animals += try await pool.run { try self.animalsAround(inBase, in: source) }.map { animal in
                Subject(kind: animal.kind, box: animal.box.scaled(x: sx, y: sy).clamped(to: image.size), confidence: animal.confidence)
            }
        }
        return (candidates, animals)
    }

    /// The cats and dogs the object detector finds around a face's `box` (in `source`'s pixels):
    /// the box and one and a half of its widths on every side, at the detector's own proxy size,
    /// each holding the face's centre; none when a person found there holds it too; boxes in
    /// `source`'s pixels. A dog's face that YuNet scores
    /// at 0.86 in a collage of four small dogs, which the whole-image pass saw no dog in, is found
    /// on a dog here.
    func animalsAround(_ box: Box, in source: RenderedImage) throws -> [Subject] {
        let detector = try redactionObjectDetector()
        let bounds = source.size
        guard bounds.width > 0, bounds.height > 0 else { return [] }
        let side = max(1, box.width, box.height)
        let around = Box(x: box.x - 1.5 * side, y: box.y - 1.5 * side, width: box.width + 3 * side, height: box.height + 3 * side).clamped(to: bounds)
        let left = Int(rounding: around.x, within: 0...(bounds.width - 1)), top = Int(rounding: around.y, within: 0...(bounds.height - 1))
        let width = Int(rounding: around.width, within: 1...(bounds.width - left)), height = Int(rounding: around.height, within: 1...(bounds.height - top))
        let region = PixelRect(x: left, y: top, width: width, height: height)
        let view = try source.cropped(region, to: region.size.fitting(longSide: Accuracy.accurate.faceLongSide, enlarge: true)).pixels()
        let (fx, fy) = (Double(width) / Double(view.width), Double(height) / Double(view.height))
        let holding = try detector.detectNow(in: view).compactMap { found -> Subject? in
            let inSource = Box(x: Double(left) + found.box.x * fx, y: Double(top) + found.box.y * fy, width: found.box.width * fx, height: found.box.height * fy)
            return inSource.contains(x: box.midX, y: box.midY) ? Subject(kind: found.kind, box: inSource, confidence: found.confidence) : nil
        }
        // A person seen there too (a cheek against a dog's): the face stays a person's.
        if holding.contains(where: { $0.kind == .person }) { return [] }
        return holding.filter { $0.kind.traits.strategy == .pets }
    }

    /// The object detector redaction's animal looks use, made once.
    private func redactionObjectDetector() throws -> ObjectDetector {
        if let made = redactionObjectDetectorSlot.withLock({ $0 }) { return made }
        let folder = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: ObjectDetector.modelFile)
        let detector = try ObjectDetector(models: folder, accuracy: .accurate, inference: configuration.inference)
        return redactionObjectDetectorSlot.withLock { existing in
            if let existing { return existing }
            existing = detector
            return detector
        }
    }

    /// Where the tiles of `tile`'s size start in an image of `size`: as few along each side as
    /// cover it with each overlapping the next by at least a sixth of a tile, spread evenly, the
    /// first at 0 and the last at the far edge.
    static func tileOrigins(_ size: PixelSize, tile: PixelSize) -> [(Int, Int)] {
        func starts(_ length: Int, _ side: Int) -> [Int] {
            guard length > side, side > 0 else { return [0] }
            let step = max(1, side * 5 / 6), count = (length - side + step - 1) / step + 1
            return (0..<count).map { ($0 * (length - side)) / (count - 1) }
        }
        let xs = starts(size.width, tile.width), ys = starts(size.height, tile.height)
        return ys.flatMap { y in xs.map { x in (x, y) } }
    }

    /// Whether two face boxes are one face: the centre of each inside the other, areas within 4×.
    static func isSameFace(_ a: Box, _ b: Box) -> Bool {
        let ratio = a.area / max(1, b.area)
        return a.contains(x: b.midX, y: b.midY) && b.contains(x: a.midX, y: a.midY) && ratio >= 0.25 && ratio <= 4
    }

    /// The score the fast face detector gives a face on `box` (in `source`'s pixels), looking at the box
    /// with a box's width of context on every side at each of `Redaction.secondLookSides` (the
    /// box's longer side scaled to it), each look's best face there (centre inside the box, area
    /// within 4× of it; 0 for none): the second best of the looks, so that two scales must agree
    /// (a texture that looks like a face at one scale rarely does at two).
    func secondLook(at box: Box, in source: RenderedImage) throws -> Double {
        let detector = try redactionDetector(accuracy: .fast, threshold: Redaction.uncertainScore, in: secondLookDetector)
        let side = max(1, box.width, box.height)
        let bounds = source.size
        let around = Box(x: box.x - side, y: box.y - side, width: box.width + 2 * side, height: box.height + 2 * side).clamped(to: bounds)
        guard bounds.width > 0, bounds.height > 0 else { return 0 }
        let left = Int(rounding: around.x, within: 0...(bounds.width - 1)), top = Int(rounding: around.y, within: 0...(bounds.height - 1))
        let width = Int(rounding: around.width, within: 1...(bounds.width - left)), height = Int(rounding: around.height, within: 1...(bounds.height - top))
        let region = PixelRect(x: left, y: top, width: width, height: height)
        let most = Double(Accuracy.fast.faceLongSide * 3 / 4)
        var scores: [Double] = []
        for target in Redaction.secondLookSides {
            let scale = min(Double(target) / side, most / Double(max(width, height)))
            let w = Int(rounding: Double(width) * scale, within: 1...Int(most)), h = Int(rounding: Double(height) * scale, within: 1...Int(most))
            let view = try source.cropped(region, to: PixelSize(width: w, height: h)).pixels()
            let (fx, fy) = (Double(w) / Double(width), Double(h) / Double(height))
            let looked = Box(x: (box.x - Double(left)) * fx, y: (box.y - Double(top)) * fy, width: box.width * fx, height: box.height * fy)
            var best = 0.0
            for found in try detector.detectNow(in: view) where looked.contains(x: found.box.midX, y: found.box.midY) {
                let ratio = found.box.area / max(1, looked.area)
                if ratio >= 0.25, ratio <= 4 { best = max(best, found.confidence) }
            }
            scores.append(best)
        }
        return scores.sorted(by: >).dropFirst().first ?? 0
    }

    /// A redaction face detector, made once in `slot`.
    private func redactionDetector(accuracy: Accuracy, threshold: Double, in slot: borrowing Mutex<FaceDetector?>) throws -> FaceDetector {
        if let made = slot.withLock({ $0 }) { return made }
        let folder = try ModelDirectory.locate(explicit: configuration.modelsPath, containing: FaceDetector.modelFile)
        let detector = try FaceDetector(models: folder, accuracy: accuracy, threshold: threshold, inference: configuration.inference)
        return slot.withLock { existing in
            if let existing { return existing }
            existing = detector
            return detector
        }
    }
}
