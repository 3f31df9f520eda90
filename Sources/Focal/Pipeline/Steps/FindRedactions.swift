import FocalCore
import FocalDetection

/// What a redaction hides (`FocalOptions.redaction`): every subject of its kinds, found by the
/// most thorough detection Focal has (every detector on the accurate proxy, then faces again at a
/// lower threshold and in tiles of a larger copy, each such candidate confirmed by a second look:
/// `redactionFaces(in:confirmedBy:)`), whatever the crop itself used: a face a crop could do
/// without is still a face to hide. A face whose centre lies on a cat or dog and on no person is
/// the animal's (`SubjectSelection.isPetsOwnFace`), as a crop reads it. Each box is grown by
/// `Redaction.margin(forSide:)` on every side; an uncertain candidate is hidden at its own size.
/// In an animated output, every frame is searched, not only the sampled ones, as it is rendered
/// (`Render`: one decode of each frame for both), and hides what the frames on either side of it
/// were found to hold too.
///
/// The output shows its overlays too: each overlay's image (the watermark's, the frame's,
/// `image()`'s) is searched the same way, so that no face reaches an answer through them
/// (`focal serve --redact`).
struct FindRedactions: CropStep {
    let name = "find-redactions"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard job.wantsResult, job.result == nil, job.redacted == nil, let redaction = job.options.redaction, let image = job.image else { return }
        for slot in OverlaySlot.slots(of: job.options) {
            guard let overlay = job.overlayImages[slot.name] else { continue }
            job.redactedOverlays[slot.name] = try await Self.found(
                in: pipeline.workingCopy(of: overlay, accuracy: .accurate, outputLongSide: nil), by: redaction, pipeline)
        }
        // An animation's frames are searched as they are rendered, from the one decode of each
        // (`FocalPipeline.renderAnimation(…finding:…)`).
        // The same conditions as `Render`'s animated branch: any other output is searched here.
        if job.animation != nil, job.plan?.frames != nil, job.options.animatedFormat(for: image.format) != nil {
            job.redacted = []
            return
        }
        let copy = pipeline.workingCopy(of: image, accuracy: .accurate, outputLongSide: nil)
        job.redacted = try await Self.found(in: copy, identity: job.subjectIdentity, by: redaction, pipeline)
    }

    /// The regions `redaction` hides in `copy`'s image, in its pixels, grown by their margins.
    /// - Parameter identity: The image's, for the detection cache; nil reads none.
    static func found(in copy: WorkingCopy, identity: ImageIdentity? = nil, by redaction: Redaction, _ pipeline: FocalPipeline) async throws -> [Box] {
        let detected = try await pipeline.subjects(of: copy, identity: identity, accuracy: .accurate, scopes: [.everything])[.everything] ?? []
        guard redaction.hides(.face) else { return hidden(detected, candidates: [], by: redaction) }
        let (candidates, animals) = try await pipeline.redactionFaces(in: copy, confirmedBy: detected)
        // Animals found around lone candidates make those candidates the animals' own; the
        // stages' sure faces are never judged by them.
        return hidden(detected, candidates: candidates, animals: animals, by: redaction)
    }

    /// The boxes `redaction` hides: among `found` (the detection stages' subjects), those of its
    /// kinds, grown by `Redaction.margin(forSide:)` (at least `Redaction.minimumMargin` pixels) on
    /// every side; then the face `candidates` (`RedactionCandidate`), a confirmed one grown the
    /// same way, an uncertain one at its own size, not grown. Faces that are a pet's own
    /// are left out, and so are the faces of `found` scored under `Redaction.sureScore` when the
    /// redaction hides faces (they are among the candidates, looked at again), and candidates on
    /// the chest of a person whose face is sure (`isOnFacedPerson`), uncertain ones just beside
    /// a cat or dog and on no person, and ones the animal look found on a cat or dog (`animals`).
    static func hidden(_ found: [Subject], candidates: [RedactionCandidate], animals: [Subject] = [], by redaction: Redaction) -> [Box] {
        let pets = found.filter { $0.kind.traits.strategy == .pets }, people = found.filter { $0.kind == .person }
        let isAnimal = { (face: Subject) in SubjectSelection.isPetsOwnFace(face, pets: pets, people: people) }
        let isAnimalLooked = { (face: Subject) in SubjectSelection.isPetsOwnFace(face, pets: pets + animals, people: people) }
        // Faces the stages scored under `Redaction.sureScore` come back as candidates, looked at again.
        let looked = redaction.hides(.face)
        let weak = { (subject: Subject) in looked && subject.kind == .face && subject.confidence < Redaction.sureScore }
        let sure = found.filter { redaction.hides($0.kind) && !isAnimal($0) && !weak($0) }.map { grown($0.box, by: Redaction.margin(forSide: max($0.box.width, $0.box.height))) }
        let sureFaces = found.filter { $0.kind == .face && !isAnimal($0) && !weak($0) }
        // An uncertain candidate beside a cat or dog (on its box grown by `Redaction.petReach`),
        // overlapping it, and on no person is its fur or paw: detectors cut an animal's box short
        // at its edges. (A confirmed face above a dog's back may be a child's: it stays hidden.)
        let reach = pets.map { Subject(kind: $0.kind, box: grown($0.box, by: Redaction.petReach), confidence: $0.confidence) }
        let nearPet = { (face: Subject) in
            SubjectSelection.isPetsOwnFace(face, pets: reach, people: people) && pets.contains { $0.box.intersection(face.box) != nil }
        }
        let more = candidates.filter { candidate in
            !isAnimalLooked(candidate.face) && !(!candidate.certain && nearPet(candidate.face))
                && !isOnFacedPerson(candidate.face, faces: sureFaces, people: people)
        }.map { candidate in
            let box = candidate.face.box
            // An uncertain one at its own size: a few pixels around a 7 px box would treble it.
            return candidate.certain ? grown(box, by: Redaction.margin(forSide: max(box.width, box.height))) : box
        }
        return sure + more
    }

    /// Whether a candidate `face` lies on people who already have theirs: every person whose box
    /// holds its centre (a box taken 5 % taller, whose bottom a detector cuts short at an image's
    /// edge) holds a sure face (one of `faces`) in the upper half of the box, wholly above the
    /// candidate and at most `Redaction.torsoFaces` of its heights above it (the candidate is on
    /// the chest, not between the legs, where a child behind may show), over it (the candidate's
    /// centre within half the face's width of its sides) and at least
    /// `Redaction.facedPersonRatio` times its side; and at least one person does. One
    /// person has one face: a button, a badge or a tie on a body whose face is found is not
    /// another (a child on a lap has a face of more than a third of the adult's; a face behind a
    /// person is usually a person of its own, whose box frees it).
    static func isOnFacedPerson(_ face: Subject, faces: [Subject], people: [Subject]) -> Bool {
        let (cx, cy) = (face.box.midX, face.box.midY), side = max(face.box.width, face.box.height)
        let holding = people.filter { $0.box.x <= cx && cx <= $0.box.maxX && $0.box.y <= cy && cy <= $0.box.maxY + 0.05 * $0.box.height }
        return !holding.isEmpty && holding.allSatisfy { person in
            faces.contains { known in
                let box = known.box
                return person.box.contains(x: box.midX, y: box.midY) && box.midY <= person.box.midY && box.maxY <= face.box.y
                    && face.box.y <= box.maxY + Redaction.torsoFaces * box.height
                    && abs(cx - box.midX) <= box.width && max(box.width, box.height) >= Redaction.facedPersonRatio * side
            }
        }
    }

    /// `box` grown by `share` of its size on every side, at least `Redaction.minimumMargin` pixels.
    static func grown(_ box: Box, by share: Double) -> Box {
        let (dx, dy) = (max(box.width * share, Redaction.minimumMargin), max(box.height * share, Redaction.minimumMargin))
        return Box(x: box.x - dx, y: box.y - dy, width: box.width + 2 * dx, height: box.height + 2 * dy)
    }
}
