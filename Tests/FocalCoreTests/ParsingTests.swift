import Testing
import PropertyBased
import FocalCore

/// The text forms a person types: targets, padding, zoom and focus points.
@Suite struct ParsingTests {
    @Test(arguments: [
        ("400x300", CropTarget.size(width: 400, height: 300)),
        ("16:9", .aspect(width: 16, height: 9)),
        ("1x1", .size(width: 1, height: 1)),
        ("1080X1350", .size(width: 1080, height: 1350)),
        ("4:5", .aspect(width: 4, height: 5)),
        ("32:18", .aspect(width: 32, height: 18)),
        ("100000x100000", .size(width: 100_000, height: 100_000)),
    ])
    func parsesTargets(text: String, expected: CropTarget) throws {
        #expect(try CropTarget(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "400", "400x", "x300", "16:", ":9", "16:9:1", "4x3x2", "0x300", "400x0", "0:9", "-4:3", "16/9",
        "abc", "4.5x3", "400x300px", "16 : 9", "sixteen:nine", "100001x5", "1x", "x", ":",
    ])
    func rejectsJunkTargets(text: String) {
        let error = planningError { () throws(PlanningError) in _ = try CropTarget(parsing: text) }
        #expect(error?.isInvalidTarget == true, "'\(text)' gave \(String(describing: error))")
    }

    @Test(arguments: [
        ("0.2", Padding.fraction(0.2)),
        ("0", .fraction(0)),
        ("1.5", .fraction(1.5)),
        ("24px", .pixels(24)),
        ("0px", .pixels(0)),
        ("12.5px", .pixels(12.5)),
        ("24PX", .pixels(24)),
    ])
    func parsesPadding(text: String, expected: Padding) throws {
        #expect(try Padding(parsing: text) == expected)
    }

    @Test(arguments: ["", "px", "-0.1", "-24px", "abc", "24pt", "24 px", "0.2.3", "nan", "inf", "11", "1e9px0"])
    func rejectsJunkPadding(text: String) {
        let error = planningError { () throws(PlanningError) in _ = try Padding(parsing: text) }
        #expect(error?.isInvalidOption == true, "'\(text)' gave \(String(describing: error))")
    }

    @Test(arguments: [
        ("fill", Zoom.fill),
        ("subject:0.6", .subject(0.6)),
        ("subject:1", .subject(1)),
        ("subject:0.05", .subject(0.05)),
        ("0.6", .subject(0.6)),
        (" FILL ", .fill),
    ])
    func parsesZoom(text: String, expected: Zoom) throws {
        #expect(try Zoom(parsing: text) == expected)
    }

    @Test(arguments: [
        "", "fit", "subject", "subject:", "subject:0", "subject:1.5", "subject:-0.5", "subject:abc", "subject:nan",
        "zoom:0.5", "subject:0.5:1", ":0.6", "1.5", "0x1p-1", "nan",
    ])
    func rejectsJunkZoom(text: String) {
        let error = planningError { () throws(PlanningError) in _ = try Zoom(parsing: text) }
        #expect(error?.isInvalidOption == true, "'\(text)' gave \(String(describing: error))")
    }

    @Test(arguments: [
        ("320,180", ManualOverride.focus(x: 320, y: 180)),
        ("0,0", .focus(x: 0, y: 0)),
        ("12.5,99.25", .focus(x: 12.5, y: 99.25)),
        ("320, 180", .focus(x: 320, y: 180)),
        ("100x50:420x290", .region(PixelRect(x: 100, y: 50, width: 320, height: 240))),
        ("10.5x20:30x40.2", .region(PixelRect(x: 10, y: 20, width: 20, height: 21))),
    ])
    func parsesFocusPoints(text: String, expected: ManualOverride) throws {
        #expect(try ManualOverride(parsingFocus: text) == expected)
    }

    @Test(arguments: [
        "", "320", "320,", ",180", "a,b", "1,2,3", "320x180", "320;180", "inf,1", "1,nan", "-1,5", "1e10,1", "100x50:50x290", "1x2:3",
        "1x2:3x4:5x6",
    ])
    func rejectsJunkFocusPoints(text: String) {
        let error = planningError { () throws(PlanningError) in _ = try ManualOverride(parsingFocus: text) }
        #expect(error?.isInvalidOption == true, "'\(text)' gave \(String(describing: error))")
    }

    // MARK: - What is printed can be read back

    @Test func targetsRoundTripThroughTheirDescription() async throws {
        await propertyCheck(count: 300, input: Gen.int(in: 1...100_000), Gen.int(in: 1...100_000), Gen.bool) { a, b, isSize throws in
            let target: CropTarget = isSize ? .size(width: a, height: b) : .aspect(width: a, height: b)
            #expect(try CropTarget(parsing: target.description) == target)
        }
    }

    @Test func paddingAndZoomRoundTripThroughTheirDescription() async throws {
        await propertyCheck(count: 300, input: Gen.double(in: 0...10), Gen.bool, Gen.double(in: 0.001...1)) { value, inPixels, f throws in
            let padding: Padding = inPixels ? .pixels(value * 100) : .fraction(value)
            #expect(try Padding(parsing: padding.description) == padding)
            #expect(try Zoom(parsing: Zoom.subject(f).description) == .subject(f))
        }
        #expect(try Zoom(parsing: Zoom.fill.description) == .fill)
    }
}
