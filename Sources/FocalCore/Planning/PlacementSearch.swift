/// Chooses where a crop goes when the subjects cannot all fit in it.
///
/// Candidate positions line the crop's edges up with each subject's padded box (and centre it on
/// each subject and on the whole region); each candidate is scored and the best kept. A subject
/// with its whole box inside scores most (weight: √area × confidence × its kind's weight, 1 unless
/// a request weighs kinds: `kinds(face:2+dog:1)`), a little more with its
/// padding; a face at least 90 % inside scores less, and a face cut deeper loses in proportion to
/// how deep the cut goes. Placements that cut fewer faces through the middle (25–75 % inside)
/// always win, so a face is never cut through the middle when a placement exists that avoids it. Animals and
/// bodies score when at least 80 % of them shows, a little more the more shows (concavely, so
/// that several small trims beat one deep cut), and lose when cut deeper. Ties go to
/// the placement nearest the centre of the region.
struct PlacementSearch {
    /// The most subjects one search weighs.
    static let maxSubjects = 32

    let frame: CropFrame
    let size: PixelSize
    let subjects: [Subject]
    let padded: [Box]
    let region: Box
    /// Each subject's kind weight (`SubjectPreference.weight(of:)`): 1 unless a request weighs kinds.
    var kindWeights: [Double] = []

    func best() -> PixelRect {
        let w = Double(size.width), h = Double(size.height)
        var xs: Set<Int> = [], ys: Set<Int> = []
        for (subject, box) in zip(subjects, padded) {
            for x in [box.x, box.maxX - w, box.midX - w / 2, subject.box.x, subject.box.maxX - w] {
                xs.insert(frame.place(size: size, x: x, y: 0).x)
            }
            for y in [box.y, box.maxY - h, box.midY - h / 2, subject.box.y, subject.box.maxY - h] {
                ys.insert(frame.place(size: size, x: 0, y: y).y)
            }
        }
        // An even grid between the edge-aligned positions catches placements that trade a
        // little of several subjects for all of another.
        let steps = 32
        for i in 0...steps {
            let t = Double(i) / Double(steps)
            xs.insert(frame.place(size: size, x: t * Double(frame.imageSize.width - size.width), y: 0).x)
            ys.insert(frame.place(size: size, x: 0, y: t * Double(frame.imageSize.height - size.height)).y)
        }
        let centred = frame.place(size: size, centredOn: region)
        xs.insert(centred.x)
        ys.insert(centred.y)

        // Fewest faces cut through the middle first, then the best score. Sorted so that equal
        // scores resolve the same way on every run.
        var best = centred, bestCuts = middleCuts(centred), bestScore = score(centred)
        for x in xs.sorted() {
            for y in ys.sorted() {
                let crop = PixelRect(x: x, y: y, width: size.width, height: size.height)
                let cuts = middleCuts(crop)
                guard cuts <= bestCuts else { continue }
                let s = score(crop)
                if cuts < bestCuts || s > bestScore + 1e-9 { (best, bestCuts, bestScore) = (crop, cuts, s) }
            }
        }
        return best
    }

    /// The faces, then the inferred heads, the crop cuts through the middle (25–75 % of the box
    /// inside), as one number that orders placements: any face cut weighs more than every head cut.
    /// Only faces of the heaviest weight count: a request that weighs another kind above faces
    /// (`kinds(face:1+motorbike:3)`) lets the score decide.
    func middleCuts(_ crop: PixelRect) -> Int {
        let c = crop.box
        let heaviest = kindWeights.max() ?? 1
        let counted = subjects.indices.filter { ($0 < kindWeights.count ? kindWeights[$0] : 1) >= heaviest }.map { subjects[$0] }
        let cut = counted.filter { ($0.kind == .face || $0.kind == .head) && (0.25...0.75).contains($0.box.fractionInside(c)) }
        let faces = cut.filter { $0.kind == .face }.count
        return faces * (subjects.count + 1) + (cut.count - faces)
    }

    func score(_ crop: PixelRect) -> Double {
        let c = crop.box
        var total = 0.0
        for (index, (subject, box)) in zip(subjects, padded).enumerated() {
            let kindWeight = index < kindWeights.count ? kindWeights[index] : 1
            let weight = subject.box.area.squareRoot() * max(subject.confidence, 0.05) * kindWeight
            let inside = subject.box.fractionInside(c)
            let padded = c.contains(box, tolerance: 0.5)
            if subject.kind != .face && subject.kind != .head {
                // Animals and bodies count when at least 80 % shows, a little more the more shows
                // (concavely, so that trimming several a little beats cutting one deeper); one
                // cut deeper than that loses in proportion to how deep the cut goes.
                if inside >= 0.8 {
                    total += weight * (1 + 0.3 * (1 - (1 - inside) * (1 - inside)) + (padded ? 0.1 : 0))
                } else if inside > 0 {
                    total -= weight * 0.3 * 2 * min(inside, 1 - inside)
                }
            } else if inside >= 1 - 1e-9 {
                // A whole face beats padding around another one.
                total += weight * (1.4 + (padded ? 0.2 : 0))
            } else if inside >= 0.9 {
                total += weight
            } else if inside > 0 {
                // 0 for a sliver, 1 for a cut through the middle of the face.
                total -= 4 * weight * 2 * min(inside, 1 - inside)
            }
        }
        // A tiny pull towards the region's centre breaks ties without outweighing any subject.
        let dx = c.midX - region.midX, dy = c.midY - region.midY
        let diagonal = (Double(frame.imageSize.width * frame.imageSize.width + frame.imageSize.height * frame.imageSize.height)).squareRoot()
        return total - 1e-3 * (dx * dx + dy * dy).squareRoot() / diagonal
    }
}
