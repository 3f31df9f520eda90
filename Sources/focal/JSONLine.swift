import Focal
import Foundation

/// The one-line JSON documents the commands print with `--json`, encoded as the service's are
/// (`DocumentEncoding`: keys sorted, pixels to 2 decimals, fractions and confidences to 4).
enum JSONLine {
    /// `focal crop --json`: the input, the image's size, the crop, the strategy, every subject,
    /// the output and where it came from, the region framed, and the options as read.
    struct Crop: Encodable {
        let input: String
        let width: Int, height: Int
        let crop: PixelRectDocument
        let strategy: String
        let subjects: [SubjectDocument]
        let output: String?
        let origin: String
        let region: BoxDocument?
        let options: [String: String]
        /// An animated output's frames: each one's crop and delay.
        let frames: [FrameDocument]?
        /// Where the subjects were placed, when a placement was asked (`CropPlan.placement`).
        var placement: String? = nil
        /// With `--timings`: where the time went, step by step.
        var timings: [Timing]? = nil

        private enum Keys: String, CodingKey { case input, width, height, crop, strategy, subjects, output, origin, region, options, frames, placement, timings }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(input, forKey: .input)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(crop, forKey: .crop)
            try c.encode(strategy, forKey: .strategy)
            try c.encode(subjects, forKey: .subjects)
            try c.encode(output, forKey: .output)  // null without -o
            try c.encode(origin, forKey: .origin)
            try c.encodeIfPresent(region, forKey: .region)
            try c.encode(options, forKey: .options)
            try c.encodeIfPresent(frames, forKey: .frames)
            try c.encodeIfPresent(placement, forKey: .placement)
            try c.encodeIfPresent(timings, forKey: .timings)
        }
    }

    /// One step's time (`CropResult.timings`): `{"step", "ms"}`, in the order the steps ran.
    struct Timing: Encodable {
        let step: String
        let ms: Double

        init(_ timing: StepTiming) {
            step = timing.name
            let (seconds, attoseconds) = timing.duration.components
            ms = (Double(seconds) * 1000 + Double(attoseconds / 1_000_000_000_000) / 1000)
        }
    }

    /// `focal crop --timings` without `--json`: `{"input", "timings"}`.
    struct Timings: Encodable {
        let input: String
        let timings: [Timing]
    }

    static func timings(input: String, _ timings: [StepTiming]) -> String {
        DocumentEncoding.text(Timings(input: input, timings: timings.map(Timing.init)))
    }

    /// `focal detect --json`: the input, its size and every subject found.
    struct Detect: Encodable {
        let input: String
        let width: Int, height: Int
        let subjects: [SubjectDocument]
    }

    /// A failure: `{"input"?, "error", "code"}`.
    struct Failure: Encodable {
        let input: String?
        let error: String
        let code: String
    }

    /// One `--require` line of `focal eval --json`: `{"requirement", "met", "value"}`.
    struct Requirement: Encodable {
        let requirement: String
        let met: Bool
        let value: Double?

        private enum Keys: String, CodingKey { case requirement, met, value }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(requirement, forKey: .requirement)
            try c.encode(met, forKey: .met)
            try c.encode(value, forKey: .value)  // null when the run has no such figure
        }
    }

    static func crop(
        input: String, plan: CropPlan, detected: [Subject], output: String?, origin: String, options: FocalOptions, timings: [StepTiming]? = nil
    ) -> String {
        DocumentEncoding.text(
            Crop(
                input: input, width: plan.imageSize.width, height: plan.imageSize.height, crop: PixelRectDocument(plan.crop),
                strategy: plan.strategy.rawValue, subjects: detected.map(SubjectDocument.init), output: output, origin: origin,
                region: plan.region.map(BoxDocument.init),
                options: Dictionary(uniqueKeysWithValues: CropOption.canonical(options).map { ($0.name, $0.value) }),
                frames: plan.frames?.map(FrameDocument.init), placement: plan.placement, timings: timings?.map(Timing.init)))
    }

    static func error(input: String?, message: String, code: ErrorCode) -> String {
        DocumentEncoding.text(Failure(input: input, error: message, code: code.rawValue))
    }
}
