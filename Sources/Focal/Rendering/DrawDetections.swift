import FocalCore
import FocalImaging

/// `draw_detections()`: each subject the crop's detection found, outlined in its kind's colour,
/// thicker when the crop was built around it. In an animation, the subjects of the last sampled
/// frame at or before the frame.
struct DrawDetections: FrameChange {
    let name = "draw-detections"

    func ready(for job: CropJob, plan: CropPlan, in pipeline: FocalPipeline) async throws -> ReadyFrameChange? {
        guard job.options.drawDetections else { return nil }
        let samples = job.frameSubjects ?? [(0, job.cropSubjects)]
        let used = Set(plan.subjects)
        let thickness = max(2, max(plan.outputSize.width, plan.outputSize.height) / 150)
        return ReadyFrameChange { image, frame in
            let seen = samples.last { $0.frame <= frame.index }?.subjects ?? []
            let regions = FocalPipeline.outputRegions(seen.map(\.box), crop: frame.crop, output: frame.output)
            let outlines = zip(seen, regions).map { subject, rect in
                let rgb = subject.kind.traits.rgb
                return Outline(rect, red: rgb.red, green: rgb.green, blue: rgb.blue, thickness: used.contains(subject) ? 2 * thickness : thickness)
            }
            return try image.outlining(outlines)
        }
    }
}
