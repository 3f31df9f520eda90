import FocalCore
import Testing

/// Every class of the object detector is a kind (`kinds(truck)`), kinds may carry weights
/// (`kinds(face:2+dog:1)`), and the kept subjects may be placed (`placement(thirds)`).
@Suite struct ObjectKindTests {
    let face = Subject(kind: .face, box: Box(x: 100, y: 300, width: 60, height: 60), confidence: 0.9)
    let truck = Subject(kind: SubjectKind(rawValue: "truck"), box: Box(x: 1400, y: 250, width: 400, height: 250), confidence: 0.8)
    let dog = Subject(kind: .dog, box: Box(x: 1500, y: 300, width: 150, height: 120), confidence: 0.9)

    @Test func everyClassIsAKindInTheOneTable() throws {
        #expect(COCOClasses.names.count == 80)
        for kind in COCOClasses.kinds {
            #expect(kind.rawValue.allSatisfy { $0.isLowercase || $0 == "_" }, "\(kind)")
            let row = kind.traits
            #expect(row.kind == kind && row.colour.hasPrefix("#"))
            #expect(row.countsByDefault == [SubjectKind.person, .cat, .dog].contains(kind), "only people and pets count by default: \(kind)")
            #expect(try SubjectPreference(text: kind.rawValue).text == kind.rawValue)
        }
        #expect(Set(SubjectKind.allCases).isSuperset(of: COCOClasses.kinds))
        #expect(COCOClasses.kinds.contains(SubjectKind(rawValue: "traffic_light")) && COCOClasses.kinds.contains(SubjectKind(rawValue: "cell_phone")))
    }

    @Test func spellingsWeightsAndRefusals() throws {
        let cases = [
            ("truck", "truck"), ("Trucks", "truck"), ("bicycle+person", "bicycle+person"), ("no-car", "no-car"), ("motorcycle", "motorbike"),
            ("couch+tv", "sofa+tvmonitor"), ("face:2+dog:1", "face:2+dog:1"), ("face:2+dog", "face:2+dog:1"), ("pet:0.5+face:1.25", "pet:0.5+face:1.25"),
            ("horse:1.50", "horse:1.5"),
        ]
        for (text, canonical) in cases { #expect(try SubjectPreference(text: text).text == canonical, "\(text)") }
        for bad in ["face:0", "face:101", "face:-1", "face:2:3", "no-face:2", "face:x", "face:1.234", "spaceship", "truck+truck:2"] {
            #expect(throws: PlanningError.self, "\(bad)") { try SubjectPreference(text: bad) }
        }
        let weighted = try SubjectPreference(text: "face:2+dog")
        #expect(weighted.weight(of: .face) == 2 && weighted.weight(of: .head) == 2 && weighted.weight(of: .dog) == 1 && weighted.weight(of: .cat) == 1)
        #expect(weighted.rank(of: .face) == 0 && weighted.rank(of: .dog) == 0 && weighted.rank(of: .cat) == nil)
    }

    @Test func otherClassesCountOnlyWhenNamed() throws {
        // The default crop and one that leaves kinds out never use a truck; one that names it does.
        #expect(SubjectSelection.choose([truck]).isEmpty)
        #expect(SubjectSelection.choose([truck], preference: try SubjectPreference(text: "no-person")).isEmpty)
        #expect(SubjectSelection.choose([face, truck]).map(\.kind) == [.face])
        #expect(SubjectSelection.choose([face, truck], preference: try SubjectPreference(text: "truck")).map(\.kind) == [truck.kind])
        #expect(Set(SubjectSelection.choose([face, truck], preference: try SubjectPreference(text: "truck+face")).map(\.kind)) == [truck.kind])
        #expect(Set(SubjectSelection.choose([face, truck], preference: try SubjectPreference(text: "truck:1+face:1")).map(\.kind)) == [truck.kind, .face])
    }

    /// A face and a dog 1,400 px apart cannot share a 600 px wide crop: the weights decide which
    /// one the crop keeps whole.
    @Test func weightsDecideWhatACropKeeps() throws {
        let image = PixelSize(width: 2000, height: 600)
        func crop(_ kinds: String) throws -> PixelRect {
            var options = CropOptions()
            options.kinds = try SubjectPreference(text: kinds)
            return try CropPlanner.plan(imageSize: image, target: .aspect(width: 1, height: 1), subjects: [face, dog], options: options).crop
        }
        let faceFirst = try crop("face:5+dog:1"), dogFirst = try crop("face:1+dog:5")
        #expect(faceFirst.box.contains(face.box, tolerance: 0.5), "\(faceFirst)")
        #expect(dogFirst.box.contains(dog.box, tolerance: 0.5), "\(dogFirst)")
        #expect(!faceFirst.box.contains(dog.box, tolerance: 0.5) && !dogFirst.box.contains(face.box, tolerance: 0.5))
    }

    /// Thirds put a face's eyes on the upper third line and its centre on the third line on its
    /// side; a point puts the centre there; neither ever loses the subject, and the plan says so.
    @Test func placementsPutTheSubjectsWhereAsked() throws {
        let image = PixelSize(width: 3000, height: 2000)
        let face = Subject(kind: .face, box: Box(x: 1000, y: 800, width: 100, height: 120), confidence: 0.95)
        func plan(_ placement: Placement?) throws -> CropPlan {
            var options = CropOptions()
            options.placement = placement
            options.zoom = .subject(0.2)
            return try CropPlanner.plan(imageSize: image, target: .size(width: 600, height: 600), subjects: [face], options: options)
        }
        let centred = try plan(nil), thirds = try plan(.thirds), point = try plan(.point(x: 0.75, y: 0.5))
        #expect(centred.placement == nil)
        let (w, h) = (Double(thirds.crop.width), Double(thirds.crop.height))
        let eyes = face.box.y + 0.4 * face.box.height
        #expect(abs((eyes - Double(thirds.crop.y)) - h / 3) <= 1, "eyes on the upper third: \(thirds.crop)")
        #expect(abs((face.box.midX - Double(thirds.crop.x)) - w / 3) <= 1, "left of the image's centre: the left third")
        #expect(thirds.placement == "thirds: left, upper")
        #expect(abs((face.box.midX - Double(point.crop.x)) - 0.75 * Double(point.crop.width)) <= 1)
        #expect(point.placement == "point 0.75,0.5")
        for placed in [thirds, point] { #expect(placed.crop.box.contains(face.box, tolerance: 0.5)) }
        // Against the image's edge the subject stays whole: the crop stops at the edge.
        let corner = Subject(kind: .face, box: Box(x: 10, y: 10, width: 100, height: 120), confidence: 0.95)
        var options = CropOptions()
        options.placement = .point(x: 0.9, y: 0.9)
        options.zoom = .subject(0.2)
        let edge = try CropPlanner.plan(imageSize: image, target: .size(width: 600, height: 600), subjects: [corner], options: options)
        #expect(edge.crop.x == 0 && edge.crop.y == 0 && edge.crop.box.contains(corner.box, tolerance: 0.5))
        #expect(throws: PlanningError.self) { try Placement(text: "1.5,0.5") }
        #expect(try Placement(text: "centre") == .center && Placement(text: "0.333,0.50").description == "0.333,0.5")
    }
}

/// Tight crops (`tight(width)`): the kept subjects' padded box at its own aspect.
@Suite struct TightCropTests {
    @Test func theFrameFollowsTheSubjects() throws {
        let image = PixelSize(width: 3000, height: 2000)
        let face = Subject(kind: .face, box: Box(x: 1000, y: 800, width: 100, height: 120), confidence: 0.95)
        for side in TightSide.allCases {
            var options = CropOptions()
            options.tight = side
            let plan = try CropPlanner.plan(imageSize: image, target: .size(width: 300, height: 300), subjects: [face], options: options)
            let region = try #require(plan.region)
            #expect(side == .width ? plan.outputSize.width == 300 : plan.outputSize.height == 300)
            // The output's aspect is the padded box's, within a pixel of the side that follows it.
            let expected = side == .width ? 300 * region.height / region.width : 300 * region.width / region.height
            #expect(abs(Double(side == .width ? plan.outputSize.height : plan.outputSize.width) - expected) <= 1)
            #expect(plan.crop.box.contains(face.box, tolerance: 0.5))
            #expect(abs(Double(plan.crop.width) - region.width) <= 1 || abs(Double(plan.crop.height) - region.height) <= 1)
            #expect(plan.placement == "tight: \(side.rawValue) 300")
        }
        // No subject: the size as asked.
        var options = CropOptions()
        options.tight = .width
        let none = try CropPlanner.plan(imageSize: image, target: .size(width: 300, height: 200), subjects: [], options: options)
        #expect(none.outputSize == PixelSize(width: 300, height: 200))
        #expect(throws: PlanningError.self) { try TightSide(text: "diagonal") }
    }
}
